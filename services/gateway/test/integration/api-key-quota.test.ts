import { startHarness, type Harness } from '../fixtures/gateway-harness';

// Issue #30: 25 API keys in a row were issued. A platform holds at most MAX_ACTIVE_API_KEYS
// working keys per environment; rotation and revocation replace a key and still work at the limit.
const LIMIT = 3;
let h: Harness;

beforeAll(async () => {
  h = await startHarness({ env: { MAX_ACTIVE_API_KEYS: String(LIMIT) } });
});
afterAll(async () => {
  await h.stop();
});

const issue = (platformId: string, body: Record<string, unknown> = {}) =>
  h.admin('POST', `/admin/platforms/${platformId}/keys`, body);

/** A platform (its first key issued by the harness) brought to `LIMIT` sandbox keys. */
async function fullPlatform(): Promise<{ platformId: string; keyId: string }> {
  const { platformId, keyId } = await h.platform();
  for (let i = 1; i < LIMIT; i += 1) expect((await issue(platformId)).status).toBe(201);
  return { platformId, keyId };
}

function expectQuotaRefusal(res: { status: number; body: { error: Record<string, unknown> } }, used = LIMIT) {
  expect(res.status).toBe(403);
  expect(res.body.error.code).toBe('FORBIDDEN');
  expect(res.body.error.message).toMatch(new RegExp(`at most ${LIMIT} active sandbox keys`));
  expect(res.body.error.details).toEqual({ quota: 'activeApiKeys', limit: LIMIT, used });
}

describe('active API key quota', () => {
  it('when a platform holds its limit of active keys, then the operator API refuses one more with 403 naming the quota', async () => {
    const { platformId } = await fullPlatform();
    expectQuotaRefusal(await issue(platformId));
    // The other environment's keys are counted apart.
    expect((await issue(platformId, { environment: 'production' })).status).toBe(201);
  });

  it('when a platform is at its limit, then rotating and revoking still work (each replaces a key), and a new key is still refused', async () => {
    const { platformId, keyId } = await fullPlatform();
    const rotated = await h.admin('POST', `/admin/keys/${keyId}/rotate`);
    expect(rotated.status).toBe(200);
    const revoked = await h.admin('POST', `/admin/keys/${rotated.body.data.id}/revoke`);
    expect(revoked.status).toBe(200);
    // The rotated key still works for 24 h but its successor holds its place.
    expectQuotaRefusal(await issue(platformId));
  });

  it('when several issues race at the limit less one, then exactly one passes', async () => {
    const { platformId } = await h.platform();
    for (let i = 1; i < LIMIT - 1; i += 1) expect((await issue(platformId)).status).toBe(201);
    const answers = await Promise.all(Array.from({ length: 6 }, () => issue(platformId)));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 403, 403, 403, 403, 403]);
  });

  it('when a platform developer asks the dashboard for one key too many, then 403 with the same message and details', async () => {
    const signedUp = await h.signUp({
      email: `quota.${process.pid}@example.com`,
      password: 'a long enough passphrase',
      name: 'Quota Platform',
      role: 'platform',
    });
    expect(signedUp.status).toBe(200);
    const cookie = `svc_session=${/svc_session=([^;]+)/.exec(signedUp.headers.get('set-cookie') ?? '')?.[1]}`;
    const headers = { cookie, 'x-csrf-token': signedUp.body.data.csrfToken as string };
    const listed = await h.call(undefined, 'GET', '/dashboard/api/keys', undefined, headers);
    const already = (listed.body.data as unknown[]).length;
    for (let i = already; i < LIMIT; i += 1) {
      expect((await h.call(undefined, 'POST', '/dashboard/api/keys', undefined, headers)).status).toBe(201);
    }
    expectQuotaRefusal(await h.call(undefined, 'POST', '/dashboard/api/keys', undefined, headers));
  });
});
