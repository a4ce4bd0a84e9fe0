import { Registry } from 'prom-client';
import { createHttpClient, type HttpClient } from '../../src';
import { startDownstream, type Downstream } from './downstream.fixture';

describe('http client: proxying', () => {
  let downstream: Downstream;
  let registry: Registry;
  let client: HttpClient;

  beforeEach(async () => {
    downstream = await startDownstream();
    registry = new Registry();
    client = createHttpClient({ target: 'registry', baseUrl: downstream.url, registry });
  });

  afterEach(async () => {
    await client.close();
    await downstream.close();
  });

  it('when the target answers, then status, headers and body come back as sent, and the request reached it as sent', async () => {
    let seen: { method?: string; url?: string; auth?: string; body?: string } = {};
    downstream.handle((req, res, body) => {
      seen = { method: req.method, url: req.url, auth: req.headers.authorization, body };
      res.writeHead(201, {
        'content-type': 'application/json',
        'x-request-id': 'rid-1',
        'set-cookie': ['a=1', 'b=2'],
      });
      res.end('{"data":{"id":"claim_1"}}');
    });

    const res = await client.request({
      method: 'POST',
      path: '/v1/svc/claims?dryRun=true',
      headers: { authorization: 'Bearer t', 'content-type': 'application/json' },
      body: '{"name":"Ada"}',
    });

    expect(seen).toEqual({
      method: 'POST',
      url: '/v1/svc/claims?dryRun=true',
      auth: 'Bearer t',
      body: '{"name":"Ada"}',
    });
    expect(res.status).toBe(201);
    expect(res.headers['x-request-id']).toBe('rid-1');
    expect(res.headers['set-cookie']).toEqual(['a=1', 'b=2']);
    expect(Buffer.isBuffer(res.body)).toBe(true);
    expect(res.body.toString()).toBe('{"data":{"id":"claim_1"}}');
  });

  it.each([400, 404, 409, 500, 503])(
    'when the target answers %i, then the answer is returned, not thrown',
    async (status) => {
      downstream.handle((_req, res) => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(`{"error":{"code":"X","message":"${status}"}}`);
      });

      const res = await client.request({ method: 'GET', path: '/x' });

      expect(res.status).toBe(status);
      expect(JSON.parse(res.body.toString())).toEqual({ error: { code: 'X', message: String(status) } });
    },
  );

  it('when json() is used, then the body is sent as JSON and the answer parsed', async () => {
    let seen: { type?: string; accept?: string; body?: string } = {};
    downstream.handle((req, res, body) => {
      seen = { type: req.headers['content-type'], accept: req.headers.accept, body };
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"data":{"ok":true}}');
    });

    const res = await client.json<{ data: { ok: boolean } }>({
      method: 'POST',
      path: '/things',
      body: { a: [1, 2] },
    });

    expect(seen).toEqual({ type: 'application/json', accept: 'application/json', body: '{"a":[1,2]}' });
    expect(res.status).toBe(200);
    expect(res.body.data.ok).toBe(true);
  });

  it('when json() gets an empty 204, then the body is undefined', async () => {
    downstream.handle((_req, res) => {
      res.writeHead(204);
      res.end();
    });

    const res = await client.json<undefined>({ method: 'DELETE', path: '/things/1' });

    expect(res).toMatchObject({ status: 204, body: undefined });
  });

  it('when json() gets a body that is not JSON, then an INTERNAL AppError naming the target', async () => {
    downstream.handle((_req, res) => res.end('<html>oops</html>'));

    await expect(client.json({ method: 'GET', path: '/x' })).rejects.toMatchObject({
      code: 'INTERNAL',
      message: 'registry answered with a body that is not JSON',
    });
  });

  it.each([502, 503, 504])(
    "when json() gets a %i whose body is not JSON (a load balancer's page), then SERVICE_UNAVAILABLE with Retry-After, not INTERNAL",
    async (status) => {
      downstream.handle((_req, res) => {
        res.writeHead(status, { 'content-type': 'text/html' });
        res.end('<html><body><h1>502 Bad Gateway</h1></body></html>');
      });

      await expect(client.json({ method: 'GET', path: '/x' })).rejects.toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
        status: 503,
        headers: { 'Retry-After': '1' },
        message: `registry is unavailable (answered ${status})`,
        details: { reason: 'unavailable_answer', status },
      });
    },
  );

  it('when the base URL has a path, then it prefixes every request path', async () => {
    let url: string | undefined;
    downstream.handle((req, res) => {
      url = req.url;
      res.end();
    });
    const prefixed = createHttpClient({
      target: 'registry',
      baseUrl: `${downstream.url}/internal/`,
      registry,
    });

    await prefixed.request({ method: 'GET', path: '/claims?limit=1' });
    await prefixed.close();

    expect(url).toBe('/internal/claims?limit=1');
  });

  it('when many requests are made one after another, then kept-alive connections carry them instead of one each', async () => {
    downstream.handle((_req, res) => res.end('ok'));

    for (let i = 0; i < 20; i += 1) await client.request({ method: 'GET', path: '/ping' });

    expect(downstream.hits).toBe(20);
    // undici may open a second socket while the first is still finishing its bookkeeping; never more.
    expect(downstream.connections).toBeLessThanOrEqual(2);
  });

  it('when calls are made, then requests by target and status, their durations, and the breaker state are on the registry', async () => {
    downstream.handle((req, res) => {
      res.writeHead(req.url === '/missing' ? 404 : 200);
      res.end();
    });

    await client.request({ method: 'GET', path: '/a' });
    await client.request({ method: 'GET', path: '/b' });
    await client.request({ method: 'GET', path: '/missing' });
    const text = await registry.metrics();

    expect(text).toContain('http_client_requests_total{target="registry",status="200"} 2');
    expect(text).toContain('http_client_requests_total{target="registry",status="404"} 1');
    expect(text).toContain('http_client_request_duration_seconds_count{target="registry"} 3');
    expect(text).toContain('circuit_breaker_state{target="registry"} 0');
  });

  it('when two clients share one registry, then both register without error and keep their own series', async () => {
    downstream.handle((_req, res) => res.end());
    const other = createHttpClient({ target: 'licensing', baseUrl: downstream.url, registry });

    await client.request({ method: 'GET', path: '/' });
    await other.request({ method: 'GET', path: '/' });
    await other.close();
    const text = await registry.metrics();

    expect(text).toContain('http_client_requests_total{target="registry",status="200"} 1');
    expect(text).toContain('http_client_requests_total{target="licensing",status="200"} 1');
  });
});
