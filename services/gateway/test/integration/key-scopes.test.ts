import { ECHO_ROUTES, startEchoService, startHarness, type Harness } from '../fixtures/gateway-harness';

// Restricted keys (#32): a read-only key reaches the GET operations, a check-only key the identity
// checks; the gateway refuses the rest with 403 FORBIDDEN before the owning service sees them.
let h: Harness;
let echo: Awaited<ReturnType<typeof startEchoService>>;

beforeAll(async () => {
  echo = await startEchoService();
  h = await startHarness({
    routes: [
      ...ECHO_ROUTES,
      // The identity check's operation id, answered by the echo service's POST.
      {
        id: 'checkIdentity',
        method: 'POST',
        path: '/v1/svc/identity/check',
        service: 'registry',
        upstreamPath: '/v1/svc/things',
      },
    ],
    serviceUrls: { REGISTRY_URL: echo.url },
  });
});
afterAll(async () => {
  await h.stop();
  await echo.service.stop();
});

async function platformSession() {
  return (await h.session('platform')).headers;
}

async function issue(headers: Record<string, string>, scope?: string) {
  const res = await h.call(
    undefined,
    'POST',
    '/dashboard/api/keys',
    scope === undefined ? {} : { scope },
    headers,
  );
  expect(res.status).toBe(201);
  return res.body.data as { id: string; key: string; scope: string };
}

describe('restricted keys', () => {
  it('when a read-only key writes, then it is refused with 403 before the service sees it, and counted; its reads pass', async () => {
    const headers = await platformSession();
    const key = await issue(headers, 'read_only');
    expect(key.scope).toBe('read_only');
    expect((await h.call(key.key, 'GET', '/v1/svc/echo/1')).status).toBe(200);

    const before = echo.calls();
    const refused = await h.call(key.key, 'POST', '/v1/svc/things', { a: 1 });
    expect(refused.status).toBe(403);
    expect(refused.body.error).toMatchObject({
      code: 'FORBIDDEN',
      message: "This key's scope (read_only) does not allow things",
      details: { scope: 'read_only', operation: 'things' },
    });
    expect(echo.calls()).toBe(before);
    // The refusal counts against the key's budget, and says so.
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('58');
    expect((await h.call(key.key, 'POST', '/v1/svc/identity/check', {})).status).toBe(403);
  });

  it('when a check-only key checks an identity, then it passes; anything else, a read included, is refused', async () => {
    const headers = await platformSession();
    const key = await issue(headers, 'check_only');
    expect((await h.call(key.key, 'POST', '/v1/svc/identity/check', { name: 'Ada' })).status).toBe(201);
    const read = await h.call(key.key, 'GET', '/v1/svc/echo/1');
    expect(read.status).toBe(403);
    expect(read.body.error.details.scope).toBe('check_only');
    expect((await h.call(key.key, 'POST', '/v1/svc/things', {})).status).toBe(403);
  });

  it('when a restricted key is rotated, then its successor keeps the scope; a key issued without one is full', async () => {
    const headers = await platformSession();
    const key = await issue(headers, 'check_only');
    const rotated = await h.call(
      undefined,
      'POST',
      `/dashboard/api/keys/${key.id}/rotate`,
      undefined,
      headers,
    );
    expect((await h.call(rotated.body.data.key, 'GET', '/v1/svc/echo/1')).status).toBe(403);
    const full = await issue(headers);
    expect(full.scope).toBe('full');
    expect((await h.call(full.key, 'POST', '/v1/svc/things', {})).status).toBe(201);
    const listed = await h.call(undefined, 'GET', '/dashboard/api/keys', undefined, headers);
    const scopes = Object.fromEntries(
      (listed.body.data as { id: string; scope: string }[]).map((each) => [each.id, each.scope]),
    );
    expect(scopes).toEqual({
      [key.id]: 'check_only',
      [rotated.body.data.id]: 'check_only',
      [full.id]: 'full',
    });
  });

  it('when the scope is not one of the three, then the issue is refused on the field', async () => {
    const headers = await platformSession();
    const res = await h.call(undefined, 'POST', '/dashboard/api/keys', { scope: 'admin' }, headers);
    expect(res.status).toBe(400);
    expect(res.body.error.details.fields[0].field).toBe('scope');
  });
});
