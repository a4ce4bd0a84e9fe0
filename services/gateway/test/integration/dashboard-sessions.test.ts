import { totpCodeAt } from '../fixtures/otp';
import { ECHO_ROUTES, startEchoService, startHarness, type Harness } from '../fixtures/gateway-harness';

// Dashboard accounts and sessions (ADR 0024): a session acts as its tenant on the public API,
// proves every state change with its CSRF token, expires, and sign-in is throttled.
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

let n = 0;
async function signUp(role: 'creator' | 'platform' = 'creator') {
  n += 1;
  const email = `person${n}@example.com`;
  const res = await h.signUp({
    email: email.toUpperCase(),
    password: 'twelve chars or more',
    name: `Person ${n}`,
    role,
  });
  expect(res.status).toBe(200);
  const cookie = /svc_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1] ?? '';
  return {
    email,
    cookie: `svc_session=${cookie}`,
    csrf: res.body.data.csrfToken as string,
    session: res.body.data,
  };
}

describe('dashboard sessions', () => {
  it('when a creator signs up and follows the mailed link, then the cookie is HttpOnly and SameSite and the session acts as its own tenant on the public API', async () => {
    const res = await h.signUp({
      email: 'first@example.com',
      password: 'twelve chars or more',
      name: 'First',
      role: 'creator',
    });
    const setCookie = res.headers.get('set-cookie') ?? '';
    expect(setCookie).toMatch(/HttpOnly/);
    expect(setCookie).toMatch(/SameSite=Strict/);
    // The harness calls 127.0.0.1: localhost is the one place the cookie is not Secure.
    expect(setCookie).not.toMatch(/Secure/);
    const cookie = `svc_session=${/svc_session=([^;]+)/.exec(setCookie)?.[1]}`;
    const echoed = await h.call(undefined, 'GET', '/v1/svc/echo/1', undefined, { cookie });
    expect(echoed.status).toBe(200);
    expect(echoed.body.data.claims).toMatchObject({
      platformId: res.body.data.account.platformId,
      plan: 'sandbox',
    });
    // The session's own budget (DASHBOARD_CALLS_PER_MINUTE), not the sandbox plan's 60 (#30).
    expect(echoed.headers.get('x-ratelimit-limit')).toBe('300');
  });

  it('when the e-mail is taken (in any case), then the answer is the one a new address gets (no enumeration, #30)', async () => {
    const { email } = await signUp();
    const res = await h.call(undefined, 'POST', '/dashboard/api/accounts', {
      email: email.toUpperCase(),
      password: 'twelve chars or more',
      name: 'Again',
      role: 'creator',
    });
    expect(res.status).toBe(202);
    expect(res.body).toEqual({ data: { status: 'verification_sent', email } });
    expect(res.headers.get('set-cookie')).toBeNull();
  });

  it('when a session changes state without its CSRF token, or from another origin, then 403 and nothing reaches the service', async () => {
    const { cookie, csrf } = await signUp();
    const before = echo.calls();
    const noToken = await h.call(undefined, 'POST', '/v1/svc/things', { a: 1 }, { cookie });
    expect(noToken.status).toBe(403);
    const wrongToken = await h.call(
      undefined,
      'POST',
      '/v1/svc/things',
      { a: 1 },
      { cookie, 'x-csrf-token': 'nope' },
    );
    expect(wrongToken.status).toBe(403);
    const crossSite = await h.call(
      undefined,
      'POST',
      '/v1/svc/things',
      { a: 1 },
      { cookie, 'x-csrf-token': csrf, origin: 'https://evil.example' },
    );
    expect(crossSite.status).toBe(403);
    expect(crossSite.body.error.message).toBe('Cross-site request refused');
    expect(echo.calls()).toBe(before);
    const good = await h.call(
      undefined,
      'POST',
      '/v1/svc/things',
      { a: 1 },
      { cookie, 'x-csrf-token': csrf },
    );
    expect(good.status).toBe(201);
  });

  it('when the session is signed out or has expired, then it reads nothing', async () => {
    const out = await signUp();
    expect(
      (
        await h.call(undefined, 'DELETE', '/dashboard/api/session', undefined, {
          cookie: out.cookie,
          'x-csrf-token': out.csrf,
        })
      ).status,
    ).toBe(204);
    expect((await h.call(undefined, 'GET', '/v1/svc/echo/1', undefined, { cookie: out.cookie })).status).toBe(
      401,
    );
    expect(
      (await h.call(undefined, 'GET', '/dashboard/api/session', undefined, { cookie: out.cookie })).status,
    ).toBe(401);

    const old = await signUp();
    h.clock.advance(12 * 60 * 60 * 1000 + 1000);
    const expired = await h.call(undefined, 'GET', '/v1/svc/echo/1', undefined, { cookie: old.cookie });
    expect(expired.status).toBe(401);
    expect(expired.body.error.message).toBe('Your session has ended');
  });

  it('when a password is guessed more than 5 times, then 429 with a clear message, even for the right password', async () => {
    const { email } = await signUp('platform');
    for (let i = 0; i < 5; i += 1) {
      const wrong = await h.call(undefined, 'POST', '/dashboard/api/session', {
        email,
        password: `guess ${i}`,
      });
      expect(wrong.status).toBe(401);
    }
    const refused = await h.call(undefined, 'POST', '/dashboard/api/session', {
      email,
      password: 'twelve chars or more',
    });
    expect(refused.status).toBe(429);
    expect(refused.body.error.message).toMatch(
      /^Too many failed sign-in attempts\. Try again in \d+ minutes?\.$/,
    );
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    h.clock.advance(15 * 60 * 1000);
    const later = await h.call(undefined, 'POST', '/dashboard/api/session', {
      email,
      password: 'twelve chars or more',
    });
    expect(later.status).toBe(200);
  });

  it("when a platform's developer manages keys, then another platform's key is not found and a revoked key is refused by the API", async () => {
    const mine = await signUp('platform');
    const theirs = await signUp('platform');
    const headers = { cookie: mine.cookie, 'x-csrf-token': mine.csrf };
    const issued = await h.call(undefined, 'POST', '/dashboard/api/keys', undefined, headers);
    expect(issued.status).toBe(201);
    const key = issued.body.data.key as string;
    expect((await h.call(key, 'GET', '/v1/svc/echo/1')).status).toBe(200);
    const other = await h.call(undefined, 'POST', '/dashboard/api/keys', undefined, {
      cookie: theirs.cookie,
      'x-csrf-token': theirs.csrf,
    });
    const stolen = await h.call(
      undefined,
      'POST',
      `/dashboard/api/keys/${other.body.data.id}/revoke`,
      undefined,
      headers,
    );
    expect(stolen.status).toBe(404);
    const revoked = await h.call(
      undefined,
      'POST',
      `/dashboard/api/keys/${issued.body.data.id}/revoke`,
      undefined,
      headers,
    );
    expect(revoked.status).toBe(200);
    expect((await h.call(key, 'GET', '/v1/svc/echo/1')).body.error.code).toBe('KEY_REVOKED');
    const listed = await h.call(undefined, 'GET', '/dashboard/api/keys', undefined, { cookie: mine.cookie });
    const statuses = listed.body.data.map((k: { id: string; status: string }) => [k.id, k.status]);
    // Nothing replaced it (#32: the dashboard's revoke no longer mints a successor).
    expect(Object.fromEntries(statuses)).toEqual({ [issued.body.data.id]: 'revoked' });
  });

  it('when the operator signs in with the token, then the session reaches the operator API and a creator session does not', async () => {
    const wrong = await h.call(undefined, 'POST', '/dashboard/api/operator-session', {
      token: 'not the token',
    });
    expect(wrong.status).toBe(401);
    expect(wrong.body.error.details.fields[0].field).toBe('token');
    // The operator's second factor: enrolled with the token, confirmed by the first code (#30).
    const enrolment = await h.call(undefined, 'POST', '/dashboard/api/operator-session/totp', {
      token: 'test-admin-token-0123456789',
    });
    const signedIn = await h.call(undefined, 'POST', '/dashboard/api/operator-session', {
      token: 'test-admin-token-0123456789',
      code: totpCodeAt(enrolment.body.data.secret, h.clock.now()),
    });
    expect(signedIn.status).toBe(200);
    const cookie = `svc_session=${/svc_session=([^;]+)/.exec(signedIn.headers.get('set-cookie') ?? '')?.[1]}`;
    expect((await h.call(undefined, 'GET', '/admin/platforms', undefined, { cookie })).status).toBe(200);
    // The operator has no tenant: the public API is not theirs.
    expect((await h.call(undefined, 'GET', '/v1/svc/echo/1', undefined, { cookie })).status).toBe(403);
    const creator = await signUp();
    expect(
      (await h.call(undefined, 'GET', '/admin/platforms', undefined, { cookie: creator.cookie })).status,
    ).toBe(403);
  });
});
