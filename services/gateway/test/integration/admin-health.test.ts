import { createLogger } from '@svc/logger';
import { InProcessMessageBus, type OutboxBacklog } from '@svc/messaging';
import { newId } from '@svc/ids';
import { createService, type ReadinessCheck, type Service } from '@svc/service-kit';
import { deadLetterRoutes, healthRoutes } from '@svc/service-runtime';
import { JWT_SECRET, startHarness, type Harness } from '../fixtures/gateway-harness';

const silent = createLogger('test', { level: 'silent' });

let h: Harness;
let bus: InProcessMessageBus;
const services: Service[] = [];

/** A domain service as the runtime mounts it: its readiness checks, its outbox, its consumer queues. */
async function domainService(
  name: string,
  options: { readiness: ReadinessCheck[]; backlog: () => Promise<OutboxBacklog>; queues: string[] },
): Promise<string> {
  const service: Service = createService({
    name,
    logger: silent,
    internalJwtSecret: JWT_SECRET,
    readiness: options.readiness,
    routes: (router) => {
      deadLetterRoutes(router, { bus, queues: options.queues, logger: silent });
      healthRoutes(router, { readiness: () => service.readiness(), backlog: options.backlog });
    },
  });
  services.push(service);
  return (await service.listen(0, '127.0.0.1')).url;
}

beforeAll(async () => {
  bus = new InProcessMessageBus({ logger: silent });
  await bus.subscribe({
    queue: 'registry.box-stats',
    patterns: ['registry.box.*'],
    maxAttempts: 1,
    handler: async () => {
      throw new TypeError('stats of an unknown box');
    },
  });
  await bus.subscribe({
    queue: 'detection.identity',
    patterns: ['registry.box.*'],
    handler: async () => undefined,
  });
  h = await startHarness({
    serviceUrls: {
      // Ready, with events waiting for the broker and a dead letter.
      REGISTRY_URL: await domainService('registry', {
        readiness: [
          { name: 'db', check: async () => undefined },
          {
            name: 'bus',
            informational: true,
            check: async () => {
              throw new Error('message bus not connected');
            },
          },
        ],
        backlog: async () => ({ count: 3, oldestUnsentSeconds: 42 }),
        queues: ['registry.box-stats'],
      }),
      // Its database is down: it answers, not ready, and cannot count its outbox.
      DETECTION_URL: await domainService('detection', {
        readiness: [
          {
            name: 'db',
            check: async () => {
              throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
            },
          },
        ],
        backlog: async () => {
          throw new Error('connect ECONNREFUSED 127.0.0.1:5432');
        },
        queues: ['detection.identity'],
      }),
      // Deployed but down.
      BILLING_URL: 'http://127.0.0.1:1',
    },
  });
  await bus.publish({
    id: newId('evt'),
    type: 'registry.box.created',
    version: 1,
    occurredAt: new Date().toISOString(),
    data: { boxId: 'box_1' },
  });
  const deadline = performance.now() + 5000;
  while ((await bus.deadLetterCount('registry.box-stats')) === 0 && performance.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
});

afterAll(async () => {
  await h.stop();
  for (const service of services) await service.stop();
  await bus.close();
});

describe('operator API: system health', () => {
  it('when the operator asks for health, then each service shows its readiness, outbox backlog and dead letters, the gateway its own readiness, and a down service is not ready and named', async () => {
    const res = await h.admin('GET', '/admin/health');

    expect(res.status).toBe(200);
    const rows = res.body.data as Array<{ service: string }>;
    expect(rows[0]).toEqual({
      service: 'gateway',
      ready: true,
      checks: [{ name: 'db', result: 'ok', passed: true }],
      outboxBacklog: null,
      oldestUnsentSeconds: null,
      deadLetters: null,
    });
    const byService = Object.fromEntries(rows.map((row) => [row.service, row]));
    expect(byService['registry']).toEqual({
      service: 'registry',
      ready: true,
      checks: [
        { name: 'db', result: 'ok', passed: true },
        { name: 'bus', result: 'degraded: message bus not connected', passed: true },
      ],
      outboxBacklog: 3,
      oldestUnsentSeconds: 42,
      deadLetters: 1,
    });
    expect(byService['detection']).toEqual({
      service: 'detection',
      ready: false,
      checks: [{ name: 'db', result: 'connect ECONNREFUSED 127.0.0.1:5432', passed: false }],
      outboxBacklog: null,
      oldestUnsentSeconds: null,
      deadLetters: 0,
    });
    expect(byService['billing']).toEqual({
      service: 'billing',
      ready: false,
      checks: [],
      outboxBacklog: null,
      oldestUnsentSeconds: null,
      deadLetters: null,
    });
    expect(rows).toHaveLength(4);
    expect(res.body.meta.unreachable).toEqual([{ service: 'billing', error: expect.any(String) }]);
  });

  it('when the operator token is missing or wrong, then 401 and nothing is shown', async () => {
    expect((await fetch(`${h.url}/admin/health`)).status).toBe(401);
    const wrong = await fetch(`${h.url}/admin/health`, { headers: { authorization: 'Bearer nope' } });
    expect(wrong.status).toBe(401);
  });

  it('when the OpenAPI document is read, then it declares the health operation', async () => {
    const res = await fetch(`${h.url}/v1/svc/openapi.json`);
    const doc = (await res.json()) as { paths: Record<string, Record<string, unknown>> };

    expect(Object.keys(doc.paths['/admin/health'] ?? {})).toContain('get');
  });
});
