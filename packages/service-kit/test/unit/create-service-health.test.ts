import request from 'supertest';
import { Registry } from 'prom-client';
import { createService, type CreateServiceOptions } from '../../src';
import { bearer, capturingLogger, SECRET } from './service.fixture';

function service(overrides: Partial<CreateServiceOptions> = {}) {
  return createService({
    name: 'health-test',
    logger: capturingLogger().logger,
    internalJwtSecret: SECRET,
    routes: (router) => {
      router.get('/claims/:id', (req, res) => {
        res.json({ id: req.params.id });
      });
    },
    ...overrides,
  });
}

describe('createService: health, readiness and metrics', () => {
  it('when /healthz is called without a token, then it answers 200 {status: ok}', async () => {
    const res = await request(service().app).get('/healthz');

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ok' });
  });

  it('when every readiness check resolves, then /readyz answers 200 with each check ok', async () => {
    const { app } = service({
      readiness: [
        { name: 'database', check: async () => undefined },
        { name: 'broker', check: async () => undefined },
      ],
    });

    const res = await request(app).get('/readyz');

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ status: 'ready', checks: { database: 'ok', broker: 'ok' } });
  });

  it('when a readiness check fails, then /readyz answers 503 naming the failure', async () => {
    const { app } = service({
      readiness: [
        { name: 'database', check: async () => undefined },
        {
          name: 'broker',
          check: async () => {
            throw new Error('connection refused');
          },
        },
      ],
    });

    const res = await request(app).get('/readyz');

    expect(res.status).toBe(503);
    expect(res.body).toEqual({
      status: 'not_ready',
      checks: { database: 'ok', broker: 'connection refused' },
    });
  });

  it('when only an informational check fails (the broker, while the outbox buffers), then /readyz stays 200 and reports it degraded', async () => {
    const { app } = service({
      readiness: [
        { name: 'database', check: async () => undefined },
        {
          name: 'broker',
          informational: true,
          check: async () => {
            throw new Error('message bus not connected');
          },
        },
      ],
    });

    const res = await request(app).get('/readyz');

    expect(res.status).toBe(200);
    expect(res.body).toEqual({
      status: 'ready',
      checks: { database: 'ok', broker: 'degraded: message bus not connected' },
    });
  });

  it('when a readiness check hangs, then /readyz answers 503 after about a second, not later', async () => {
    const { app } = service({
      readiness: [{ name: 'database', check: () => new Promise<void>(() => undefined) }],
    });

    const started = performance.now();
    const res = await request(app).get('/readyz');
    const elapsed = performance.now() - started;

    expect(res.status).toBe(503);
    expect(res.body).toEqual({ status: 'not_ready', checks: { database: 'timed out after 1000 ms' } });
    expect(elapsed).toBeGreaterThanOrEqual(950);
    expect(elapsed).toBeLessThan(1500);
  });

  it('when markNotReady was called, then /readyz answers 503 even though every check passes, and /healthz stays 200', async () => {
    const svc = service({ readiness: [{ name: 'database', check: async () => undefined }] });
    svc.markNotReady();

    const ready = await request(svc.app).get('/readyz');
    const alive = await request(svc.app).get('/healthz');

    expect(ready.status).toBe(503);
    expect(ready.body).toMatchObject({ status: 'not_ready' });
    expect(alive.status).toBe(200);
  });

  it('when requests were served, then /metrics (without a token) shows http_requests_total by route pattern, not raw URL', async () => {
    const { app } = service();
    await request(app).get('/claims/claim_aaa').set('Authorization', bearer());
    await request(app).get('/claims/claim_bbb').set('Authorization', bearer());
    await request(app).get('/no/such/route').set('Authorization', bearer());

    const res = await request(app).get('/metrics');

    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain/);
    expect(res.text).toContain('http_requests_total{method="GET",route="/claims/:id",status="200"} 2');
    expect(res.text).toContain('http_requests_total{method="GET",route="(unmatched)",status="404"} 1');
    expect(res.text).toMatch(
      /http_request_duration_seconds_count\{method="GET",route="\/claims\/:id",status="200"\} 2/,
    );
    expect(res.text).not.toContain('claim_aaa');
    // The default registry carries the process metrics too.
    expect(res.text).toContain('process_cpu_user_seconds_total');
  });

  it('when two services share one registry, then creating the second does not throw and both count into it', async () => {
    const registry = new Registry();
    const first = service({ registry });
    const second = service({ registry });
    await request(first.app).get('/healthz');
    await request(second.app).get('/healthz');

    const text = await registry.metrics();

    expect(second.registry).toBe(registry);
    expect(text).toContain('http_requests_total{method="GET",route="/healthz",status="200"} 2');
  });
});
