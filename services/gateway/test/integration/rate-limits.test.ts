import { ManualClock } from '@svc/clock';
import { ECHO_ROUTES, startEchoService, startHarness, type Harness } from '../fixtures/gateway-harness';

let h: Harness;
let second: Harness;
let echo: Awaited<ReturnType<typeof startEchoService>>;

beforeAll(async () => {
  echo = await startEchoService();
  const clock = new ManualClock('2026-11-22T10:00:05.000Z');
  h = await startHarness({ routes: ECHO_ROUTES, serviceUrls: { REGISTRY_URL: echo.url }, clock });
  // A second replica on the same database and clock: the budget must be one.
  second = await startHarness({
    routes: ECHO_ROUTES,
    serviceUrls: { REGISTRY_URL: echo.url },
    clock,
    databaseUrl: h.databaseUrl,
  });
});
afterAll(async () => {
  await second.stop();
  await h.stop();
  await echo.service.stop();
});

async function burn(harness: Harness, key: string, n: number, path = '/v1/svc/echo/1', method = 'GET') {
  const statuses: number[] = [];
  for (let i = 0; i < n; i += 1)
    statuses.push((await harness.call(key, method, path, method === 'GET' ? undefined : {})).status);
  return statuses;
}

describe('rate limits', () => {
  it('when a sandbox key makes 60 requests in a minute, then the 61st is 429 with details and Retry-After', async () => {
    const { key } = await h.platform('sandbox');
    const first = await h.call(key, 'GET', '/v1/svc/echo/1');
    expect(first.headers.get('x-ratelimit-limit')).toBe('60');
    expect(first.headers.get('x-ratelimit-remaining')).toBe('59');
    expect(first.headers.get('x-ratelimit-reset')).toBe(
      String(Date.parse('2026-11-22T10:01:00.000Z') / 1000),
    );
    expect(await burn(h, key, 59)).toEqual(Array(59).fill(200));

    const refused = await h.call(key, 'GET', '/v1/svc/echo/1');
    expect(refused.status).toBe(429);
    expect(refused.body.error).toEqual({
      code: 'RATE_LIMITED',
      message: expect.any(String),
      details: { limit: 60, remaining: 0, resetAt: '2026-11-22T10:01:00.000Z', retryAfter: 55 },
    });
    expect(refused.headers.get('retry-after')).toBe('55');
    expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
  });

  it('when the next minute starts, then the key may call again', async () => {
    const { key } = await h.platform('sandbox');
    await burn(h, key, 61);
    h.clock.advance(60_000);
    expect((await h.call(key, 'GET', '/v1/svc/echo/1')).status).toBe(200);
  });

  it('when two gateway replicas serve one key, then together they enforce one budget', async () => {
    const { key } = await h.platform('sandbox');
    const statuses = [...(await burn(h, key, 30)), ...(await burn(second, key, 30))];
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect((await second.call(key, 'GET', '/v1/svc/echo/1')).status).toBe(429);
    expect((await h.call(key, 'GET', '/v1/svc/echo/1')).status).toBe(429);
  });

  it('when a key is rotated, then the successor shares its budget', async () => {
    const { key, keyId } = await h.platform('sandbox');
    await burn(h, key, 60);
    const rotated = await h.admin('POST', `/admin/keys/${keyId}/rotate`);
    expect((await h.call(rotated.body.data.key, 'GET', '/v1/svc/echo/1')).status).toBe(429);
  });

  it('when an enterprise day limit is reached, then 429 names the day limit', async () => {
    const { key } = await h.platform('enterprise', { limits: { perMinute: 1000, perDay: 3 } });
    expect(await burn(h, key, 3)).toEqual([200, 200, 200]);
    const refused = await h.call(key, 'GET', '/v1/svc/echo/1');
    expect(refused.status).toBe(429);
    expect(refused.body.error.details.limit).toBe(3);
    expect(refused.body.error.details.resetAt).toMatch(/T00:00:00.000Z$/);
  });

  it('when usage reports pass 100 a minute on one key, then the usage bucket refuses', async () => {
    const { key } = await h.platform('enterprise', { limits: { perMinute: 10_000, perDay: 1_000_000 } });
    const statuses = await burn(h, key, 101, '/v1/svc/usage', 'POST');
    expect(statuses.slice(0, 100).every((s) => s === 201)).toBe(true);
    expect(statuses[100]).toBe(429);
    // Other routes of the same key are not held back by the usage bucket.
    expect((await h.call(key, 'GET', '/v1/svc/echo/1')).status).toBe(200);
  });

  it('when webhook tests pass 10 an hour, then the 11th is refused until the hour ends', async () => {
    const { key } = await h.platform('enterprise', { limits: { perMinute: 10_000, perDay: 1_000_000 } });
    const statuses = await burn(h, key, 10, '/v1/svc/webhooks-test', 'POST');
    expect(statuses.slice(0, 10)).toEqual(Array(10).fill(200));
    const refused = await h.call(key, 'POST', '/v1/svc/webhooks-test', {});
    expect(refused.status).toBe(429);
    expect(refused.body.error.details.limit).toBe(10);
  });

  it('when a request is refused for auth, then it is not counted against anyone', async () => {
    const res = await h.call(undefined, 'GET', '/v1/svc/echo/1');
    expect(res.status).toBe(401);
    expect(res.headers.get('x-ratelimit-limit')).toBeNull();
  });

  it('when a keyed request is refused before its body is read (413, 415, bad JSON, unknown path), then the answer still carries X-RateLimit-*', async () => {
    const { key } = await h.platform('sandbox');
    const send = (body: string, contentType: string) =>
      fetch(`${h.url}/v1/svc/things`, {
        method: 'POST',
        headers: { Authorization: `Bearer ${key}`, 'Content-Type': contentType },
        body,
      });
    const answers = [
      await send(JSON.stringify({ text: 'x'.repeat(1_100_000) }), 'application/json'),
      await send('name=Ada', 'application/x-www-form-urlencoded'),
      await send('{"name":', 'application/json'),
    ];
    expect(answers.map((res) => res.status)).toEqual([413, 415, 400]);
    const remaining = answers.map((res) => res.headers.get('x-ratelimit-remaining'));
    expect(remaining).toEqual(['59', '58', '57']);
    for (const res of answers) {
      expect(res.headers.get('x-ratelimit-limit')).toBe('60');
      expect(((await res.json()) as { error: { code: string } }).error.code).toBe('VALIDATION_ERROR');
    }
    const unknown = await h.call(key, 'GET', '/v1/svc/no-such-thing');
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('x-ratelimit-remaining')).toBe('56');
  });

  it('when the OpenAPI document is fetched, then it needs no key and is counted against none', async () => {
    const res = await fetch(`${h.url}/v1/svc/openapi.json`);
    expect(res.status).toBe(200);
    expect(res.headers.get('x-ratelimit-limit')).toBeNull();
  });
});
