import { ECHO_ROUTES, startEchoService, startHarness, type Harness } from '../fixtures/gateway-harness';

// Contracts §17 (#30): dashboard calls spend a per-session budget of their own, never the
// platform's API limit. The finding (#32): a platform's dashboard shared its plan's 60 calls a
// minute, so five box pages in a minute locked its people out, and the dashboard could starve the
// platform's own integration.
let h: Harness;
let echo: Awaited<ReturnType<typeof startEchoService>>;
const SESSION_PER_MINUTE = 5;

beforeAll(async () => {
  echo = await startEchoService();
  h = await startHarness({
    routes: ECHO_ROUTES,
    serviceUrls: { REGISTRY_URL: echo.url },
    env: { DASHBOARD_CALLS_PER_MINUTE: String(SESSION_PER_MINUTE) },
  });
});
afterAll(async () => {
  await h.stop();
  await echo.service.stop();
});

const PASSWORD = 'twelve chars or more';
const cookieOf = (setCookie: string | null) =>
  `svc_session=${/svc_session=([^;]+)/.exec(setCookie ?? '')?.[1]}`;

describe('dashboard session budgets', () => {
  it("when the platform's key spends its whole minute, then its people's dashboard sessions still answer, each on a budget of its own that does not touch the key's", async () => {
    const email = 'budget.platform@example.com';
    const signed = await h.signUp({ email, password: PASSWORD, name: 'Budget Platform', role: 'platform' });
    expect(signed.status).toBe(200);
    const platformId = signed.body.data.account.platformId as string;
    const first = cookieOf(signed.headers.get('set-cookie'));
    const issued = await h.admin('POST', `/admin/platforms/${platformId}/keys`, {});
    const key = issued.body.data.key as string;

    // The integration spends the plan's 60 calls of this minute: the 61st is refused.
    for (let i = 0; i < 60; i += 1) expect((await h.call(key, 'GET', `/v1/svc/echo/${i}`)).status).toBe(200);
    const spent = await h.call(key, 'GET', '/v1/svc/echo/61');
    expect(spent.status).toBe(429);

    // The dashboard is not locked out: the session has its own budget, shown in its headers.
    const viaSession = await h.call(undefined, 'GET', '/v1/svc/echo/s1', undefined, { cookie: first });
    expect(viaSession.status).toBe(200);
    expect(viaSession.body.data.claims).toMatchObject({ platformId });
    expect(viaSession.headers.get('x-ratelimit-limit')).toBe(String(SESSION_PER_MINUTE));
    expect(viaSession.headers.get('x-ratelimit-remaining')).toBe(String(SESSION_PER_MINUTE - 1));
    for (let i = 2; i <= SESSION_PER_MINUTE; i += 1) {
      expect(
        (await h.call(undefined, 'GET', `/v1/svc/echo/s${i}`, undefined, { cookie: first })).status,
      ).toBe(200);
    }
    // Past its own budget the session waits, told how long; the key's count did not move.
    const over = await h.call(undefined, 'GET', '/v1/svc/echo/over', undefined, { cookie: first });
    expect(over.status).toBe(429);
    expect(over.body.error.code).toBe('RATE_LIMITED');
    expect(Number(over.headers.get('retry-after'))).toBeGreaterThan(0);

    // Another session of the same person (another browser) has a budget of its own.
    const again = await h.call(undefined, 'POST', '/dashboard/api/session', { email, password: PASSWORD });
    expect(again.status).toBe(200);
    const second = cookieOf(again.headers.get('set-cookie'));
    expect((await h.call(undefined, 'GET', '/v1/svc/echo/s2-1', undefined, { cookie: second })).status).toBe(
      200,
    );

    // A new minute: the key has its 60 again, whatever the sessions spent.
    h.clock.advance(60_000);
    const fresh = await h.call(key, 'GET', '/v1/svc/echo/fresh');
    expect(fresh.status).toBe(200);
    expect(fresh.headers.get('x-ratelimit-remaining')).toBe('59');
  });
});
