import { startHarness, type Harness } from '../fixtures/dispatcher-harness';

// Issue #30: a platform could register webhook endpoints without bound. At most
// MAX_WEBHOOK_ENDPOINTS enabled endpoints per platform; disabled and deleted ones do not count.
const LIMIT = 3;
let h: Harness;
beforeAll(async () => {
  h = await startHarness({ env: { MAX_WEBHOOK_ENDPOINTS: String(LIMIT) } });
});
afterAll(async () => {
  await h.stop();
});

let n = 0;
function create(platformId: string) {
  n += 1;
  return h.call(platformId, 'POST', '/v1/svc/webhooks', { url: `http://127.0.0.1:9/hooks/${n}` });
}

describe('webhook endpoint quota', () => {
  it('when a platform has its limit of enabled endpoints, then one more is 403 FORBIDDEN naming the quota, and another platform is not affected', async () => {
    const A = 'plat_quota_full';
    for (let i = 0; i < LIMIT; i += 1) expect((await create(A)).status).toBe(201);
    const refused = await create(A);
    expect(refused.status).toBe(403);
    expect(refused.body.error.code).toBe('FORBIDDEN');
    expect(refused.body.error.message).toMatch(new RegExp(`at most ${LIMIT} enabled endpoints`));
    expect(refused.body.error.details).toEqual({ quota: 'webhookEndpoints', limit: LIMIT, used: LIMIT });
    const list = await h.call(A, 'GET', '/v1/svc/webhooks');
    expect(list.body.meta.total).toBe(LIMIT);
    expect((await create('plat_quota_other')).status).toBe(201);
  });

  it('when an endpoint is disabled or deleted, then it frees its place; enabling it again past the limit is refused', async () => {
    const A = 'plat_quota_free';
    const ids: string[] = [];
    for (let i = 0; i < LIMIT; i += 1) ids.push((await create(A)).body.data.id);
    const [first, second] = ids;
    const disabled = await h.call(A, 'PATCH', `/v1/svc/webhooks/${first}`, { status: 'disabled' });
    expect(disabled.status).toBe(200);
    expect((await create(A)).status).toBe(201);
    // Full again: the disabled one may not come back on top.
    const reenabled = await h.call(A, 'PATCH', `/v1/svc/webhooks/${first}`, { status: 'enabled' });
    expect(reenabled.status).toBe(403);
    expect(reenabled.body.error.details).toEqual({ quota: 'webhookEndpoints', limit: LIMIT, used: LIMIT });
    expect((await h.call(A, 'GET', `/v1/svc/webhooks/${first}`)).body.data.status).toBe('disabled');
    // Other edits of an enabled endpoint at the limit still work.
    const edited = await h.call(A, 'PATCH', `/v1/svc/webhooks/${second}`, { description: 'renamed' });
    expect(edited.status).toBe(200);
    expect((await h.call(A, 'DELETE', `/v1/svc/webhooks/${second}`)).status).toBe(200);
    expect((await h.call(A, 'PATCH', `/v1/svc/webhooks/${first}`, { status: 'enabled' })).status).toBe(200);
  });

  it('when several creations race at the limit less one, then exactly one passes', async () => {
    const A = 'plat_quota_race';
    for (let i = 0; i < LIMIT - 1; i += 1) expect((await create(A)).status).toBe(201);
    const answers = await Promise.all(Array.from({ length: 6 }, () => create(A)));
    expect(answers.map((a) => a.status).sort()).toEqual([201, 403, 403, 403, 403, 403]);
    expect((await h.call(A, 'GET', '/v1/svc/webhooks')).body.meta.total).toBe(LIMIT);
  });
});
