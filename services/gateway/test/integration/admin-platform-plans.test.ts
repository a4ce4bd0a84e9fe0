import { ECHO_ROUTES, startEchoService, startHarness, type Harness } from '../fixtures/gateway-harness';

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

async function signUp(role: 'creator' | 'platform', name: string) {
  const res = await h.signUp({
    email: `${name.toLowerCase().replace(/\W/g, '')}@example.com`,
    password: 'twelve chars or more',
    name,
    role,
  });
  expect(res.status).toBe(200);
  return res.body.data.account.platformId as string;
}

describe('operator API: platforms and creators, and their plans', () => {
  it('when tenants are listed, then each says whether it is a creator or a platform, and kind filters them', async () => {
    const creatorId = await signUp('creator', 'Lovelace Estate');
    const dashboardPlatformId = await signUp('platform', 'Avatar Studio');
    const { platformId: apiPlatformId } = await h.platform('basic');

    const all = await h.admin('GET', '/admin/platforms?limit=100');
    expect(all.status).toBe(200);
    const kindOf = (id: string) => all.body.data.find((p: { id: string }) => p.id === id)?.kind;
    expect(kindOf(creatorId)).toBe('creator');
    expect(kindOf(dashboardPlatformId)).toBe('platform');
    expect(kindOf(apiPlatformId)).toBe('platform');

    const creators = await h.admin('GET', '/admin/platforms?kind=creator');
    expect(creators.body.data.map((p: { id: string }) => p.id)).toEqual([creatorId]);
    expect(creators.body.meta).toEqual({ total: 1, limit: 20, offset: 0 });
    const platforms = await h.admin('GET', '/admin/platforms?kind=platform&limit=100');
    expect(platforms.body.data.map((p: { id: string }) => p.id)).not.toContain(creatorId);
    expect(platforms.body.meta.total).toBe(all.body.meta.total - 1);
    expect((await h.admin('GET', '/admin/platforms?kind=person')).status).toBe(400);
  });

  it('when the operator names tenants by id, then just those come back, with their names, whatever their age', async () => {
    const named = await signUp('creator', 'Named Estate');
    const { platformId: other } = await h.platform('basic');
    // Twenty-one newer tenants: the named ones are off the first page of the plain list.
    for (let i = 0; i < 21; i += 1) await h.platform('basic');
    const res = await h.admin('GET', `/admin/platforms?ids=${named},${other},${named},plat_nobody`);
    expect(res.status).toBe(200);
    expect(res.body.meta.total).toBe(2);
    expect(
      res.body.data.map((p: { id: string; name: string; kind: string }) => [p.id, p.kind]).sort(),
    ).toEqual(
      [
        [named, 'creator'],
        [other, 'platform'],
      ].sort(),
    );
    expect(res.body.data.find((p: { id: string }) => p.id === named).name).toBe('Named Estate');

    const tooMany = Array.from({ length: 101 }, (_, i) => `plat_${i}`).join(',');
    const refused = await h.admin('GET', `/admin/platforms?ids=${tooMany}`);
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body.error.details)).toContain('ids');
    expect((await h.admin('GET', '/admin/platforms?ids=,')).status).toBe(400);

    // A search by name, any case; LIKE's wildcards are plain characters.
    const found = await h.admin('GET', '/admin/platforms?q=NAMED%20est&limit=100');
    expect(found.body.data.map((p: { id: string }) => p.id)).toEqual([named]);
    expect((await h.admin('GET', '/admin/platforms?q=%25%25%25')).body.meta.total).toBe(0);
    // Text PostgreSQL cannot store (a NUL) is refused on its field, never a 500 (the input fuzz found it).
    for (const query of ['ids=%00', 'ids=plat_a,%00', 'q=%00']) {
      const refused = await h.admin('GET', `/admin/platforms?${query}`);
      expect(refused.status).toBe(400);
      expect(refused.body.error.details.fields[0].field).toMatch(/^query\.(ids|q)/);
    }
  });

  it('when the operator changes a plan, then the platform answers with it and its key runs under the new limits at once', async () => {
    const { platformId, key } = await h.platform('sandbox');
    expect((await h.call(key, 'GET', '/v1/svc/echo/1')).headers.get('x-ratelimit-limit')).toBe('60');

    const changed = await h.admin('PATCH', `/admin/platforms/${platformId}`, { plan: 'standard' });
    expect(changed.status).toBe(200);
    expect(changed.body.data).toMatchObject({
      id: platformId,
      plan: 'standard',
      limits: { perMinute: 1000, perDay: 500_000 },
    });
    expect((await h.call(key, 'GET', '/v1/svc/echo/1')).headers.get('x-ratelimit-limit')).toBe('1000');

    const enterprise = await h.admin('PATCH', `/admin/platforms/${platformId}`, {
      plan: 'enterprise',
      limits: { perMinute: 2500, perDay: 9_000_000 },
    });
    expect(enterprise.body.data.limits).toEqual({ perMinute: 2500, perDay: 9_000_000 });
    // Back to a listed plan: the agreed figures are dropped.
    const basic = await h.admin('PATCH', `/admin/platforms/${platformId}`, { plan: 'basic' });
    expect(basic.body.data.limits).toEqual({ perMinute: 300, perDay: 50_000 });
    expect((await h.admin('GET', `/admin/platforms/${platformId}`)).body.data.plan).toBe('basic');
  });

  it('when the plan is unknown, limits come with a listed plan, or the platform does not exist, then 400 or 404 in the error envelope', async () => {
    const { platformId } = await h.platform('sandbox');
    const unknown = await h.admin('PATCH', `/admin/platforms/${platformId}`, { plan: 'gold' });
    expect(unknown.status).toBe(400);
    expect(unknown.body.error.details.fields.map((f: { field: string }) => f.field)).toEqual(['plan']);
    const limits = await h.admin('PATCH', `/admin/platforms/${platformId}`, {
      plan: 'basic',
      limits: { perMinute: 5, perDay: 5 },
    });
    expect(limits.status).toBe(400);
    expect(limits.body.error.details.fields).toEqual([
      { field: 'limits', message: 'not allowed for plan basic' },
    ]);
    const missing = await h.admin('PATCH', '/admin/platforms/plat_doesnotexist00000000', { plan: 'basic' });
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe('NOT_FOUND');
    expect((await h.admin('GET', `/admin/platforms/${platformId}`)).body.data.plan).toBe('sandbox');
  });

  it('when a platform key or a platform’s session tries to change a plan, then it is refused', async () => {
    const { platformId, key } = await h.platform('sandbox');
    const withKey = await h.call(key, 'PATCH', `/admin/platforms/${platformId}`, { plan: 'standard' });
    expect(withKey.status).toBe(401);
    const res = await h.signUp({
      email: 'climber@example.com',
      password: 'twelve chars or more',
      name: 'Climber',
      role: 'platform',
    });
    const cookie = /svc_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1] ?? '';
    const withSession = await h.call(
      undefined,
      'PATCH',
      `/admin/platforms/${res.body.data.account.platformId}`,
      { plan: 'standard' },
      { cookie: `svc_session=${cookie}`, 'x-csrf-token': res.body.data.csrfToken },
    );
    expect(withSession.status).toBe(403);
    expect((await h.admin('GET', `/admin/platforms/${platformId}`)).body.data.plan).toBe('sandbox');
  });
});

describe('GET /dashboard/api/usage', () => {
  it('when a platform’s account and key make calls, then the usage shows its plan and each budget’s counts; another tenant’s key is not there', async () => {
    const res = await h.signUp({
      email: 'usage@example.com',
      password: 'twelve chars or more',
      name: 'Usage Co',
      role: 'platform',
    });
    const cookie = `svc_session=${/svc_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1] ?? ''}`;
    const csrf = res.body.data.csrfToken as string;
    const session = { cookie, 'x-csrf-token': csrf };
    const issued = await h.call(undefined, 'POST', '/dashboard/api/keys', undefined, session);
    expect(issued.status).toBe(201);
    for (let i = 0; i < 3; i += 1) await h.call(issued.body.data.key, 'GET', '/v1/svc/echo/1');
    for (let i = 0; i < 2; i += 1) await h.call(undefined, 'GET', '/v1/svc/echo/1', undefined, { cookie });
    const other = await h.platform('sandbox');
    await h.call(other.key, 'GET', '/v1/svc/echo/1');

    const usage = await h.call(undefined, 'GET', '/dashboard/api/usage', undefined, { cookie });
    expect(usage.status).toBe(200);
    expect(usage.body.data).toMatchObject({
      plan: 'sandbox',
      limits: { perMinute: 60, perDay: 1000 },
      // The session's own budget (#30): the dashboard's limits, not the plan's.
      session: { minute: { used: 2, limit: 300 }, day: { used: 2, limit: 20_000 } },
      keys: [{ keyId: issued.body.data.id, minute: { used: 3, limit: 60 }, day: { used: 3, limit: 1000 } }],
    });
    expect(Date.parse(usage.body.data.session.minute.resetAt)).toBeGreaterThan(h.clock.now().getTime());
    // Reading the usage counts nothing.
    const again = await h.call(undefined, 'GET', '/dashboard/api/usage', undefined, { cookie });
    expect(again.body.data.session.minute.used).toBe(2);
  });

  it('when nobody is signed in, then 401', async () => {
    const res = await h.call(undefined, 'GET', '/dashboard/api/usage');
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHORIZED');
  });
});
