import { ECHO_ROUTES, startEchoService, startHarness, type Harness } from '../fixtures/gateway-harness';

let h: Harness;
let echo: Awaited<ReturnType<typeof startEchoService>>;
let key: string;

beforeAll(async () => {
  echo = await startEchoService();
  h = await startHarness({ routes: ECHO_ROUTES, serviceUrls: { REGISTRY_URL: echo.url } });
  ({ key } = await h.platform('enterprise'));
});
afterAll(async () => {
  await h.stop();
  await echo.service.stop();
});

describe('Idempotency-Key', () => {
  it('when a POST is repeated with the same key and body, then the first answer is replayed and the service ran once', async () => {
    const before = echo.calls();
    const first = await h.call(key, 'POST', '/v1/svc/things', { a: 1 }, { 'idempotency-key': 'k-1' });
    const again = await h.call(key, 'POST', '/v1/svc/things', { a: 1 }, { 'idempotency-key': 'k-1' });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect(again.headers.get('content-type')).toContain('application/json');
    expect(echo.calls() - before).toBe(1);
  });

  it('when the same key comes with another body, then 409 IDEMPOTENCY_CONFLICT and nothing runs', async () => {
    await h.call(key, 'POST', '/v1/svc/things', { a: 1 }, { 'idempotency-key': 'k-2' });
    const before = echo.calls();
    const other = await h.call(key, 'POST', '/v1/svc/things', { a: 2 }, { 'idempotency-key': 'k-2' });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('IDEMPOTENCY_CONFLICT');
    expect(echo.calls()).toBe(before);
  });

  it('when another platform uses the same key, then it is its own request', async () => {
    const other = await h.platform('enterprise');
    await h.call(key, 'POST', '/v1/svc/things', { a: 1 }, { 'idempotency-key': 'shared' });
    const theirs = await h.call(
      other.key,
      'POST',
      '/v1/svc/things',
      { a: 9 },
      { 'idempotency-key': 'shared' },
    );
    expect(theirs.status).toBe(201);
    expect(theirs.body.data.received).toEqual({ a: 9 });
  });

  it('when the service was unavailable, then the answer is not kept and a retry runs', async () => {
    const before = echo.calls();
    const first = await h.call(key, 'POST', '/v1/svc/fail', {}, { 'idempotency-key': 'k-3' });
    expect(first.status).toBe(503);
    const retry = await h.call(key, 'POST', '/v1/svc/fail', {}, { 'idempotency-key': 'k-3' });
    expect(retry.headers.get('idempotent-replayed')).toBeNull();
    expect(echo.calls() - before).toBe(2);
  });

  it('when 24 hours have passed, then the key may be used for a new request', async () => {
    await h.call(key, 'POST', '/v1/svc/things', { a: 1 }, { 'idempotency-key': 'k-4' });
    h.clock.advance(24 * 3600 * 1000);
    const later = await h.call(key, 'POST', '/v1/svc/things', { a: 5 }, { 'idempotency-key': 'k-4' });
    expect(later.status).toBe(201);
    expect(later.headers.get('idempotent-replayed')).toBeNull();
  });

  it('when GET carries a key, then it is ignored; an unreadable key is a 400', async () => {
    expect((await h.call(key, 'GET', '/v1/svc/echo/1', undefined, { 'idempotency-key': 'k-5' })).status).toBe(
      200,
    );
    const bad = await h.call(key, 'POST', '/v1/svc/things', {}, { 'idempotency-key': 'x'.repeat(300) });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_ERROR');
  });
});

describe('Idempotency-Key when the service does not answer', () => {
  it('when the call timed out, then the key stays reserved; when the service was unreachable, then it is freed', async () => {
    const { createServer } = await import('node:net');
    const hanging = createServer(() => undefined);
    await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', () => resolve()));
    const port = (hanging.address() as { port: number }).port;
    const g = await startHarness({
      routes: [
        { id: 'hang', method: 'POST', path: '/v1/svc/hang', service: 'licensing' },
        { id: 'down', method: 'POST', path: '/v1/svc/down', service: 'detection' },
      ],
      serviceUrls: { LICENSING_URL: `http://127.0.0.1:${port}`, DETECTION_URL: 'http://127.0.0.1:1' },
      upstreamTimeoutMs: 200,
    });
    try {
      const { key: k } = await g.platform('enterprise');
      const timedOut = await g.call(k, 'POST', '/v1/svc/hang', {}, { 'idempotency-key': 'slow' });
      expect(timedOut.status).toBe(503);
      expect(timedOut.body.error.details.reason).toBe('timeout');
      const retry = await g.call(k, 'POST', '/v1/svc/hang', {}, { 'idempotency-key': 'slow' });
      expect(retry.status).toBe(409);
      expect(retry.body.error.code).toBe('IDEMPOTENCY_CONFLICT');
      // After the abandonment window the key may be retried.
      g.clock.advance(61_000);
      expect((await g.call(k, 'POST', '/v1/svc/hang', {}, { 'idempotency-key': 'slow' })).status).toBe(503);

      const down = await g.call(k, 'POST', '/v1/svc/down', {}, { 'idempotency-key': 'down' });
      expect(down.status).toBe(503);
      expect(down.body.error.details.reason).toBe('unreachable');
      const again = await g.call(k, 'POST', '/v1/svc/down', {}, { 'idempotency-key': 'down' });
      expect(again.status).toBe(503);
    } finally {
      await g.stop();
      hanging.close();
    }
  });
});
