import { ECHO_ROUTES, startEchoService, startHarness, type Harness } from '../fixtures/gateway-harness';

// A dashboard page's reads in one call (#32, "Budgets"): each read answered as it would have been
// alone, the batch counted once against the session's own budget, refused whole when it is spent.
let h: Harness;
let echo: Awaited<ReturnType<typeof startEchoService>>;

beforeAll(async () => {
  echo = await startEchoService();
  h = await startHarness({
    routes: [
      ...ECHO_ROUTES,
      // A read with a rate bucket of its own: counted apart, so never carried by a batch.
      {
        id: 'usageRead',
        method: 'GET',
        path: '/v1/svc/usage-read',
        service: 'registry',
        bucket: 'usage-report',
      },
    ],
    serviceUrls: { REGISTRY_URL: echo.url },
    env: { DASHBOARD_CALLS_PER_MINUTE: '4' },
  });
});
afterAll(async () => {
  await h.stop();
  await echo.service.stop();
});

const batch = (headers: Record<string, string>, paths: string[]) =>
  h.call(undefined, 'POST', '/dashboard/api/batch', { requests: paths.map((path) => ({ path })) }, headers);

describe('the dashboard batch', () => {
  it('when a page sends its reads together, then each gets the answer it would get alone, in order, as the tenant, and the batch counts once', async () => {
    const { headers, platformId } = await h.session('platform');
    const alone = await h.call(undefined, 'GET', '/v1/svc/echo/a?x=1', undefined, headers);
    expect(alone.headers.get('x-ratelimit-remaining')).toBe('3');
    const nowhereAlone = await h.call(undefined, 'GET', '/v1/svc/nowhere', undefined, headers);

    const before = echo.calls();
    const res = await batch(headers, [
      '/v1/svc/echo/a?x=1',
      '/v1/svc/nowhere',
      '/v1/svc/echo/b',
      '/v1/svc/no-such',
    ]);
    expect(res.status).toBe(200);
    // Counted once: four reads, one call of the session's budget.
    expect(res.headers.get('x-ratelimit-remaining')).toBe('1');
    expect(res.headers.get('cache-control')).toBe('no-store');
    expect(echo.calls() - before).toBe(2);
    const [a, nowhere, b, none] = res.body.data.responses;
    // The same answer as alone, but for the request id: the batch's, which its reads carry.
    expect(a.status).toBe(200);
    expect({ ...a.body.data, requestId: 'x' }).toEqual({ ...alone.body.data, requestId: 'x' });
    expect(a.body.data.requestId).toBe(res.headers.get('x-request-id'));
    expect(a.body.data.claims.platformId).toBe(platformId);
    expect(a.body.data.query).toEqual({ x: '1' });
    // The billing service is not deployed here: that read's own 503, with when to retry.
    expect(nowhereAlone.status).toBe(503);
    expect(nowhere).toEqual({
      status: 503,
      retryAfter: Number(nowhereAlone.headers.get('retry-after')),
      body: nowhereAlone.body,
    });
    expect(nowhere.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(b.body.data.id).toBe('b');
    expect(none).toMatchObject({ status: 404, body: { error: { code: 'NOT_FOUND' } } });
  });

  it('when a batch carries a path outside the public API, a write-only path, or an operation counted apart, then it is refused on that read, nothing is sent, and it counts as any refused call does', async () => {
    const { headers } = await h.session('platform');
    const before = echo.calls();
    const outside = await batch(headers, ['/v1/svc/echo/a', '/admin/platforms']);
    expect(outside.status).toBe(400);
    expect(outside.body.error.details.fields).toEqual([
      { field: 'requests.1.path', message: expect.stringContaining('/v1/svc') },
    ]);
    const bucketed = await batch(headers, ['/v1/svc/usage-read']);
    expect(bucketed.status).toBe(400);
    expect(bucketed.body.error.details.fields[0]).toEqual({
      field: 'requests.0.path',
      message: 'send this operation alone',
    });
    // A POST-only path is no GET operation: that read's 404, as alone.
    const write = await batch(headers, ['/v1/svc/things']);
    expect(write.body.data.responses[0].status).toBe(404);
    const tooMany = await batch(
      headers,
      Array.from({ length: 21 }, () => '/v1/svc/echo/a'),
    );
    expect(tooMany.status).toBe(400);
    expect(echo.calls()).toBe(before);
    // The session is judged (and the call counted) before its reads: four calls spent the budget of 4.
    const alone = await h.call(undefined, 'GET', '/v1/svc/echo/a', undefined, headers);
    expect(alone.status).toBe(429);
  });

  it('when the CSRF token is missing or the session ended, then the batch is refused whole', async () => {
    const { headers } = await h.session('platform');
    const noToken = await batch({ cookie: headers.cookie }, ['/v1/svc/echo/a']);
    expect(noToken.status).toBe(403);
    expect(noToken.body.error.message).toBe('Missing or wrong CSRF token');
    const anonymous = await batch({}, ['/v1/svc/echo/a']);
    expect(anonymous.status).toBe(401);
  });

  it("when the session's budget is spent, then the batch is refused whole with 429 and Retry-After, and no read is sent", async () => {
    const { headers } = await h.session('platform');
    for (let i = 0; i < 4; i += 1) expect((await batch(headers, ['/v1/svc/echo/a'])).status).toBe(200);
    const before = echo.calls();
    const refused = await batch(headers, ['/v1/svc/echo/a', '/v1/svc/echo/b']);
    expect(refused.status).toBe(429);
    expect(refused.body.error.code).toBe('RATE_LIMITED');
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
    expect(echo.calls()).toBe(before);
  });
});
