import request from 'supertest';
import { Registry } from 'prom-client';
import { createLogger } from '@svc/logger';
import { InMemorySpanExporter, SpanKind, startTelemetry, type Telemetry } from '@svc/telemetry';
import { AppError } from '@svc/errors';
import { createService, describeRequest, type CreateServiceOptions } from '../../src';
import { bearer, CLAIMS, SECRET } from './service.fixture';

const OPERATIONS = [
  { id: 'getClaim', method: 'get', path: '/v1/svc/claims/:id' },
  // A second-family operation the service serves under its upstream path.
  { id: 'identityStatus', method: 'get', path: '/identity/status/:id', upstreamPath: '/internal/status/:id' },
];

/** A service whose log lines land, parsed, in `lines`. */
function observed(options: Partial<CreateServiceOptions> = {}) {
  const lines: Record<string, unknown>[] = [];
  const logger = createLogger(
    'observed',
    { level: 'info' },
    {
      write(chunk: string) {
        for (const line of chunk.split('\n'))
          if (line !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      },
    },
  );
  const service = createService({
    name: 'observed',
    logger,
    internalJwtSecret: SECRET,
    registry: new Registry(),
    operations: OPERATIONS,
    routes: (router) => {
      router.get('/v1/svc/claims/:id', (_req, res) => {
        res.json({ data: { id: 'claim_1' } });
      });
      router.get('/internal/status/:id', (_req, res) => {
        res.json({ data: {} });
      });
      router.get('/internal/other/:id', (_req, res) => {
        res.json({ data: {} });
      });
      router.get('/boom', () => {
        throw new Error('bug');
      });
      router.use((req, _res, next) => {
        // A catch-all that knows what it served, as the gateway's proxy does.
        if (req.path !== '/proxied') return next();
        describeRequest(req, { route: 'listBoxes', platformId: 'plat_proxied' });
        throw new AppError('RATE_LIMITED', 'slow down');
      });
    },
    ...options,
  });
  const accessLines = () => lines.filter((l) => l.msg === 'request completed' || l.msg === 'request failed');
  return { service, lines, accessLines };
}

async function settle(): Promise<void> {
  await new Promise((resolve) => setTimeout(resolve, 20));
}

describe('createService: per-operation metrics and one access line per request', () => {
  it('when a declared operation is served, then its access line names the operation, status, latency, request id and platform', async () => {
    const { service, accessLines } = observed();
    const res = await request(service.app)
      .get('/v1/svc/claims/claim_1')
      .set('Authorization', bearer())
      .set('X-Request-Id', 'req-observed-1');
    await settle();

    expect(res.status).toBe(200);
    expect(accessLines()).toEqual([
      expect.objectContaining({
        level: 30,
        service: 'observed',
        msg: 'request completed',
        route: 'getClaim',
        method: 'GET',
        status: 200,
        durationMs: expect.any(Number),
        requestId: 'req-observed-1',
        platformId: CLAIMS.platformId,
      }),
    ]);
    // Our request id only, not pino-http's own `reqId` beside it.
    expect(accessLines()[0]).not.toHaveProperty('reqId');
  });

  it('when requests fail, then the line carries the closed error code, and a 5xx is logged at error', async () => {
    const { service, accessLines } = observed();
    await request(service.app).get('/nowhere').set('Authorization', bearer());
    await request(service.app).get('/boom').set('Authorization', bearer());
    await request(service.app).get('/v1/svc/claims/x');
    await settle();

    const byStatus = Object.fromEntries(accessLines().map((l) => [l.status, l]));
    expect(byStatus[404]).toMatchObject({ level: 30, route: '(unmatched)', code: 'NOT_FOUND' });
    expect(byStatus[500]).toMatchObject({
      level: 50,
      msg: 'request failed',
      route: '/boom',
      code: 'INTERNAL',
    });
    expect(byStatus[401]).toMatchObject({ level: 30, code: 'UNAUTHORIZED' });
    expect(byStatus[401]).not.toHaveProperty('platformId');
  });

  it('when probes and scrapes come in, then they get no access line', async () => {
    const { service, accessLines } = observed();
    await request(service.app).get('/healthz');
    await request(service.app).get('/readyz');
    await request(service.app).get('/metrics');
    await settle();

    expect(accessLines()).toEqual([]);
  });

  it('when operations are served, then http_requests_total is labelled by operation id (upstream paths too), else by pattern', async () => {
    const { service } = observed();
    const get = (path: string) => request(service.app).get(path).set('Authorization', bearer());
    await get('/v1/svc/claims/a');
    await get('/v1/svc/claims/b');
    await get('/internal/status/c');
    await get('/internal/other/d');
    await get('/proxied');

    const text = await service.registry.metrics();
    expect(text).toContain('http_requests_total{method="GET",route="getClaim",status="200"} 2');
    expect(text).toContain('http_requests_total{method="GET",route="identityStatus",status="200"} 1');
    expect(text).toContain('http_requests_total{method="GET",route="/internal/other/:id",status="200"} 1');
    // A name given by the handler wins: the gateway's proxy names the operation it forwarded.
    expect(text).toContain('http_requests_total{method="GET",route="listBoxes",status="429"} 1');
    expect(text).not.toMatch(/route="\/v1\/svc\/claims\/a"/);
  });

  it('when the logger is below info, then no access line is written (and pino-http is not mounted)', async () => {
    const lines: string[] = [];
    const logger = createLogger(
      'quiet',
      { level: 'warn' },
      { write: (chunk: string) => void lines.push(chunk) },
    );
    const service = createService({
      name: 'quiet',
      logger,
      internalJwtSecret: SECRET,
      registry: new Registry(),
      routes: () => undefined,
    });
    await request(service.app).get('/nowhere');
    await settle();

    expect(lines).toEqual([]);
  });
});

describe('createService: /metrics on a port of its own', () => {
  it('when metricsPort is given, then /metrics is served there only, not on the service port', async () => {
    const { service } = observed({ metricsPort: 0, requireInternalAuth: false });
    const listening = await service.listen(0, '127.0.0.1');
    try {
      expect(listening.metrics?.url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/metrics$/);
      const onService = await fetch(`${listening.url}/metrics`);
      expect(onService.status).toBe(404);
      await fetch(`${listening.url}/healthz`);
      const own = await fetch(listening.metrics!.url);
      expect(own.status).toBe(200);
      expect(await own.text()).toContain(
        'http_requests_total{method="GET",route="(unmatched)",status="404"} 1',
      );
      expect((await fetch(listening.metrics!.url.replace('/metrics', '/other'))).status).toBe(404);
    } finally {
      await service.stop(1000);
    }
    await expect(fetch(listening.metrics!.url)).rejects.toThrow();
  });
});

describe('createService: tracing', () => {
  const spans = new InMemorySpanExporter();
  let telemetry: Telemetry;
  beforeAll(() => {
    telemetry = startTelemetry({ serviceName: 'test', exporter: spans });
  });
  afterAll(async () => {
    await telemetry.shutdown();
  });
  beforeEach(() => spans.reset());

  const TRACE = '0af7651916cd43dd8448eb211c80319c';
  const traceparent = `00-${TRACE}-b7ad6b7169203331-01`;

  it("when a service is called with a caller's traceparent, then its SERVER span joins that trace, named by the operation", async () => {
    const { service, accessLines } = observed();
    await request(service.app)
      .get('/v1/svc/claims/a')
      .set('Authorization', bearer())
      .set('traceparent', traceparent);
    await settle();

    const [span] = spans.getFinishedSpans();
    expect(span?.kind).toBe(SpanKind.SERVER);
    expect(span?.name).toBe('GET getClaim');
    expect(span?.spanContext().traceId).toBe(TRACE);
    expect(span?.parentSpanContext?.spanId).toBe('b7ad6b7169203331');
    expect(span?.attributes['http.response.status_code']).toBe(200);
    // The access line leads to the trace.
    expect(accessLines()[0]).toMatchObject({ traceId: TRACE });
  });

  it('when the public edge (no internal auth) is called with a traceparent, then it starts a trace of its own', async () => {
    const { service } = observed({ requireInternalAuth: false });
    await request(service.app).get('/v1/svc/claims/a').set('traceparent', traceparent);
    await settle();

    const [span] = spans.getFinishedSpans();
    expect(span?.spanContext().traceId).toMatch(/^[0-9a-f]{32}$/);
    expect(span?.spanContext().traceId).not.toBe(TRACE);
    expect(span?.parentSpanContext).toBeUndefined();
  });
});
