import { ECHO_ROUTES, startEchoService, startHarness, type Harness } from '../fixtures/gateway-harness';

// A platform's keys in the dashboard (#32): named, told apart by their last four characters, with
// their last use; revoked at once without a successor, a rotated one during its overlap included.
let h: Harness;
let echo: Awaited<ReturnType<typeof startEchoService>>;

beforeAll(async () => {
  echo = await startEchoService();
  h = await startHarness({ routes: ECHO_ROUTES, serviceUrls: { REGISTRY_URL: echo.url } });
});
afterAll(async () => {
  await h.stop();
  await echo.service.stop();
});

async function platformSession() {
  return (await h.session('platform')).headers;
}

function sessionHeaders(res: { headers: Headers; body: { data: { csrfToken: string } } }) {
  const cookie = `svc_session=${/svc_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1] ?? ''}`;
  return { cookie, 'x-csrf-token': res.body.data.csrfToken };
}

interface Listed {
  id: string;
  name: string | null;
  last4: string | null;
  lastUsedAt: string | null;
  status: string;
}

async function listed(headers: Record<string, string>): Promise<Listed[]> {
  const res = await h.call(undefined, 'GET', '/dashboard/api/keys', undefined, headers);
  expect(res.status).toBe(200);
  return res.body.data as Listed[];
}

describe('dashboard keys', () => {
  it('when a key is issued with a name, then the list shows the name, the last four characters of the secret, and its last use once it has called the API', async () => {
    const headers = await platformSession();
    const issued = await h.call(
      undefined,
      'POST',
      '/dashboard/api/keys',
      { name: '  Production checks ' },
      headers,
    );
    expect(issued.status).toBe(201);
    expect(issued.body.data.name).toBe('Production checks');
    const secret = issued.body.data.key as string;
    // A key issued without a body (as before names) is unnamed.
    const unnamed = await h.call(undefined, 'POST', '/dashboard/api/keys', undefined, headers);
    expect(unnamed.status).toBe(201);
    expect(unnamed.body.data.name).toBeNull();

    const before = await listed(headers);
    // Both were made at the same moment of the test's clock, so their order is not asserted.
    expect(
      Object.fromEntries(before.map(({ id, name, last4, lastUsedAt }) => [id, { name, last4, lastUsedAt }])),
    ).toEqual({
      [unnamed.body.data.id]: {
        name: null,
        last4: (unnamed.body.data.key as string).slice(-4),
        lastUsedAt: null,
      },
      [issued.body.data.id]: { name: 'Production checks', last4: secret.slice(-4), lastUsedAt: null },
    });
    // The list never carries a secret.
    expect(JSON.stringify(before)).not.toContain(secret);

    expect((await h.call(secret, 'GET', '/v1/svc/echo/1')).status).toBe(200);
    // Each replica writes its keys' last use every few seconds, not per request.
    let used: Listed | undefined;
    for (let tries = 0; tries < 60 && used?.lastUsedAt == null; tries += 1) {
      await new Promise((resolve) => setTimeout(resolve, 250));
      used = (await listed(headers)).find((key) => key.id === issued.body.data.id);
    }
    expect(used?.lastUsedAt).toBe(h.clock.now().toISOString());
    expect((await listed(headers)).find((key) => key.id === unnamed.body.data.id)?.lastUsedAt).toBeNull();
  });

  it('when a name is empty or too long, then it is refused on the field and no key is issued', async () => {
    const headers = await platformSession();
    const empty = await h.call(undefined, 'POST', '/dashboard/api/keys', { name: '   ' }, headers);
    expect(empty.status).toBe(400);
    expect(empty.body.error.details.fields).toEqual([{ field: 'name', message: 'required' }]);
    const long = await h.call(undefined, 'POST', '/dashboard/api/keys', { name: 'x'.repeat(61) }, headers);
    expect(long.body.error.details.fields).toEqual([{ field: 'name', message: 'at most 60 characters' }]);
    expect(await listed(headers)).toEqual([]);
  });

  it('when a key is rotated and the old one revoked during its overlap, then the old one is refused at once, the successor keeps the name and works, and nothing new is issued', async () => {
    const { headers, email } = await h.session('platform');
    const issued = await h.call(undefined, 'POST', '/dashboard/api/keys', { name: 'Leaked' }, headers);
    const rotated = await h.call(
      undefined,
      'POST',
      `/dashboard/api/keys/${issued.body.data.id}/rotate`,
      undefined,
      headers,
    );
    expect(rotated.status).toBe(200);
    // Still in its 24 h overlap: it works until revoked.
    expect((await h.call(issued.body.data.key, 'GET', '/v1/svc/echo/1')).status).toBe(200);

    const revoked = await h.call(
      undefined,
      'POST',
      `/dashboard/api/keys/${issued.body.data.id}/revoke`,
      undefined,
      headers,
    );
    expect(revoked.status).toBe(200);
    expect(revoked.body.data).toEqual({
      revokedKeyId: issued.body.data.id,
      revokedAt: h.clock.now().toISOString(),
    });
    expect((await h.call(issued.body.data.key, 'GET', '/v1/svc/echo/1')).body.error.code).toBe('KEY_REVOKED');
    expect((await h.call(rotated.body.data.key, 'GET', '/v1/svc/echo/1')).status).toBe(200);

    // Both were made at the same moment of the test's clock: compare them in a fixed order.
    const keys = (await listed(headers)).sort((a, b) => a.status.localeCompare(b.status));
    expect(keys.map(({ id, name, status }) => ({ id, name, status }))).toEqual([
      { id: rotated.body.data.id, name: 'Leaked', status: 'active' },
      { id: issued.body.data.id, name: 'Leaked', status: 'revoked' },
    ]);

    // Twice is refused, and so is a key past its overlap.
    const again = await h.call(
      undefined,
      'POST',
      `/dashboard/api/keys/${issued.body.data.id}/revoke`,
      undefined,
      headers,
    );
    expect(again.body.error.code).toBe('INVALID_STATE');
    const second = await h.call(
      undefined,
      'POST',
      `/dashboard/api/keys/${rotated.body.data.id}/rotate`,
      undefined,
      headers,
    );
    h.clock.advance(25 * 3_600_000);
    // A day later the session has ended: sign in again.
    const signedIn = await h.call(undefined, 'POST', '/dashboard/api/session', {
      email,
      password: 'twelve chars or more',
    });
    expect(signedIn.status).toBe(200);
    const expired = await h.call(
      undefined,
      'POST',
      `/dashboard/api/keys/${rotated.body.data.id}/revoke`,
      undefined,
      sessionHeaders(signedIn),
    );
    expect(expired.status).toBe(409);
    expect(expired.body.error.code).toBe('INVALID_STATE');
    expect((await h.call(second.body.data.key, 'GET', '/v1/svc/echo/1')).status).toBe(200);
  });
});
