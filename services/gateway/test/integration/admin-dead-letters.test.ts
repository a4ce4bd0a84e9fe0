import { createLogger } from '@svc/logger';
import { InProcessMessageBus } from '@svc/messaging';
import { newId } from '@svc/ids';
import { createService, type Service } from '@svc/service-kit';
import { deadLetterRoutes } from '@svc/service-runtime';
import { JWT_SECRET, startHarness, type Harness } from '../fixtures/gateway-harness';

const silent = createLogger('test', { level: 'silent' });

let h: Harness;
let bus: InProcessMessageBus;
const services: Service[] = [];
let fixed = false;
const applied: string[] = [];

/** A consuming service as the runtime mounts it: its own queues behind the internal endpoints. */
async function consumingService(name: string, queues: string[]): Promise<string> {
  const service = createService({
    name,
    logger: silent,
    internalJwtSecret: JWT_SECRET,
    routes: (router) => deadLetterRoutes(router, { bus, queues, logger: silent }),
  });
  services.push(service);
  return (await service.listen(0, '127.0.0.1')).url;
}

beforeAll(async () => {
  // One in-process bus shared by two services, as in the embedded default.
  bus = new InProcessMessageBus({ logger: silent });
  await bus.subscribe({
    queue: 'registry.box-stats',
    patterns: ['registry.box.*'],
    maxAttempts: 1,
    handler: async (envelope) => {
      if (!fixed) throw new TypeError('stats of an unknown box');
      applied.push(envelope.id);
    },
  });
  await bus.subscribe({
    queue: 'detection.identity',
    patterns: ['registry.box.*'],
    handler: async () => undefined,
  });
  h = await startHarness({
    serviceUrls: {
      REGISTRY_URL: await consumingService('registry', ['registry.box-stats']),
      DETECTION_URL: await consumingService('detection', ['detection.identity']),
      // Deployed but down: named in meta.unreachable, the others still answer.
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
});

afterAll(async () => {
  await h.stop();
  for (const service of services) await service.stop();
  await bus.close();
});

describe('operator API: dead letters', () => {
  it('when the operator lists dead letters, then every service answers with its queues, depths and reasons; a down service is named', async () => {
    const res = await h.admin('GET', '/admin/dead-letters');

    expect(res.status).toBe(200);
    expect(res.body.data).toEqual(
      expect.arrayContaining([
        {
          service: 'registry',
          queue: 'registry.box-stats',
          depth: 1,
          messages: [
            expect.objectContaining({
              queue: 'registry.box-stats',
              type: 'registry.box.created',
              attempts: 1,
              reason: 'TypeError: stats of an unknown box',
            }),
          ],
        },
        { service: 'detection', queue: 'detection.identity', depth: 0, messages: [] },
      ]),
    );
    expect(res.body.meta.unreachable).toEqual([{ service: 'billing', error: expect.any(String) }]);
  });

  it('when the operator token is missing, then 401 and nothing is listed', async () => {
    const res = await fetch(`${h.url}/admin/dead-letters`);

    expect(res.status).toBe(401);
  });

  it('when asked about a service that is not deployed, then 404; a bad limit is 400', async () => {
    expect((await h.admin('GET', '/admin/dead-letters?service=nowhere')).status).toBe(404);
    expect((await h.admin('GET', '/admin/dead-letters?limit=1000')).status).toBe(400);
  });

  it('when the operator replays one service after the fix, then its dead letters are applied once and the queue is empty', async () => {
    fixed = true;

    const res = await h.admin('POST', '/admin/dead-letters/replay', { service: 'registry' });

    expect(res.status).toBe(200);
    expect(res.body.data).toEqual([{ service: 'registry', queue: 'registry.box-stats', replayed: 1 }]);
    const deadline = performance.now() + 5000;
    while (applied.length === 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20));
    expect(applied).toHaveLength(1);
    const after = await h.admin('GET', '/admin/dead-letters?service=registry');
    expect(after.body.data).toEqual([
      { service: 'registry', queue: 'registry.box-stats', depth: 0, messages: [] },
    ]);
  });

  it('when the OpenAPI document is read, then it declares both operator operations', async () => {
    const res = await fetch(`${h.url}/v1/svc/openapi.json`);
    const doc = (await res.json()) as { paths: Record<string, Record<string, unknown>> };

    expect(Object.keys(doc.paths['/admin/dead-letters'] ?? {})).toContain('get');
    expect(Object.keys(doc.paths['/admin/dead-letters/replay'] ?? {})).toContain('post');
  });
});
