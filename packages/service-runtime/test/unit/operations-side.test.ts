import { defineEvent } from '@svc/contracts/common';
import { createLogger } from '@svc/logger';
import { appendToOutbox, InProcessMessageBus, messagingMigrations } from '@svc/messaging';
import { signInternalToken, type InternalClaims } from '@svc/service-kit';
import { createDatabase, type Database } from '@svc/storage';
import { z } from 'zod';
import { startDomainService, type RunningDomainService } from '../../src';

const SECRET = 'runtime-test-secret-0123456789-abcdef';
const QUEUE = 'ops-test.fragile';
const pinged = defineEvent('opstest.thing.pinged', 1, z.object({ n: z.number() }));
const silent = createLogger('runtime-test', { level: 'silent' });
const platform: InternalClaims = {
  platformId: 'plat_t',
  environment: 'sandbox',
  keyId: 'key_t',
  plan: 'basic',
};
const operator: InternalClaims = { ...platform, platformId: 'operator', keyId: 'operator', role: 'operator' };

/** The in-process bus with a broker that can be "down" for readiness. */
class SwitchableBus extends InProcessMessageBus {
  brokerDown = false;
  override isReady(): boolean {
    return !this.brokerDown && super.isReady();
  }
}

function databaseDown(): Error {
  return Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
}

async function waitUntil(check: () => Promise<boolean> | boolean, what: string): Promise<void> {
  const deadline = performance.now() + 5000;
  while (!(await check())) {
    if (performance.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('startDomainService: the operations side every service gets', () => {
  let db: Database;
  let bus: SwitchableBus;
  let running: RunningDomainService;
  let fixed: boolean;
  let transientLeft: number;
  const applied: number[] = [];

  const call = (path: string, claims: InternalClaims, init: RequestInit = {}) =>
    fetch(`${running.url}${path}`, {
      ...init,
      headers: {
        authorization: `Bearer ${signInternalToken(SECRET, claims)}`,
        'content-type': 'application/json',
      },
    });
  const metrics = async () => (await fetch(`${running.url}/metrics`)).text();

  beforeAll(async () => {
    db = await createDatabase({ url: 'pglite://memory' });
    bus = new SwitchableBus({ logger: silent, retryBackoff: { initialMs: 1, maxMs: 5 } });
    fixed = false;
    transientLeft = 1;
    running = await startDomainService({
      name: 'ops-test',
      config: { PORT: 0, HOST: '127.0.0.1', DATABASE_URL: 'unused', INTERNAL_JWT_SECRET: SECRET },
      overrides: { db, bus, logger: silent },
      migrations: [messagingMigrations],
      wire: ({ db: wiredDb, clock, kickRelay }) => ({
        subscriptions: [
          {
            queue: QUEUE,
            patterns: ['opstest.thing.*'],
            maxAttempts: 2,
            handler: async (envelope) => {
              const { n } = envelope.data as { n: number };
              if (transientLeft > 0) {
                transientLeft -= 1;
                throw databaseDown();
              }
              if (n === 13 && !fixed) throw new RangeError('13 is not supported yet');
              applied.push(n);
            },
          },
        ],
        routes: (router) => {
          router.post('/ping/:n', async (req, res) => {
            await wiredDb.transaction((tx) =>
              appendToOutbox(tx, pinged.create({ n: Number(req.params.n) }, { occurredAt: clock.now() })),
            );
            kickRelay();
            res.status(202).json({ data: { ok: true } });
          });
        },
      }),
    });
  });

  afterAll(async () => {
    await running.stop();
    await bus.close();
    await db.close();
  });

  it('when an event fails transiently then for good, then /metrics shows the redeliveries, the dead-letter depth, the outbox backlog and the breaker on the service itself', async () => {
    expect((await call('/ping/13', platform, { method: 'POST' })).status).toBe(202);
    await waitUntil(async () => (await bus.deadLetterCount(QUEUE)) === 1, 'the dead letter');

    const text = await metrics();

    expect(text).toContain(`messaging_dead_letters{queue="${QUEUE}"} 1`);
    expect(text).toContain(`messaging_consumer_redeliveries_total{queue="${QUEUE}",reason="transient"} 1`);
    expect(text).toContain(`messaging_consumer_redeliveries_total{queue="${QUEUE}",reason="failure"} 1`);
    expect(text).toContain(`messaging_dead_lettered_total{queue="${QUEUE}"} 1`);
    expect(text).toMatch(/messaging_outbox_backlog\{relay="ops-test"\} 0/);
    expect(text).toMatch(/messaging_outbox_breaker_open\{relay="ops-test"\} 0/);
  });

  it('when a platform token asks for the dead letters, then 403; an operator token lists them with the reason', async () => {
    const refused = await call('/internal/dead-letters', platform);
    const listed = await call('/internal/dead-letters?limit=5', operator);

    expect(refused.status).toBe(403);
    expect(listed.status).toBe(200);
    expect(await listed.json()).toEqual({
      data: [
        {
          queue: QUEUE,
          depth: 1,
          messages: [
            expect.objectContaining({
              queue: QUEUE,
              type: 'opstest.thing.pinged',
              attempts: 2,
              reason: 'RangeError: 13 is not supported yet',
            }),
          ],
        },
      ],
    });
  });

  it('when the operator replays after the fix, then the event is applied once and the depth drops to 0', async () => {
    fixed = true;
    const refused = await call('/internal/dead-letters/replay', platform, { method: 'POST', body: '{}' });
    const replayed = await call('/internal/dead-letters/replay', operator, { method: 'POST', body: '{}' });

    expect(refused.status).toBe(403);
    expect(await replayed.json()).toEqual({ data: [{ queue: QUEUE, replayed: 1 }] });
    await waitUntil(() => applied.includes(13), 'the replayed event');
    expect(applied.filter((n) => n === 13)).toHaveLength(1);
    expect(await metrics()).toContain(`messaging_dead_letters{queue="${QUEUE}"} 0`);
  });

  it('when only the broker is down, then /readyz stays 200 and says so; writes still commit to the outbox', async () => {
    bus.brokerDown = true;
    try {
      const ready = await fetch(`${running.url}/readyz`);
      const write = await call('/ping/1', platform, { method: 'POST' });

      expect(ready.status).toBe(200);
      expect((await ready.json()) as unknown).toEqual({
        status: 'ready',
        checks: { db: 'ok', bus: 'degraded: message bus not connected' },
      });
      expect(write.status).toBe(202);
    } finally {
      bus.brokerDown = false;
    }
  });

  it("when events wait in the outbox and the broker is down, then the operator's /internal/health shows the backlog, its age and the degraded bus; a platform token is refused", async () => {
    await running.relay.stop();
    bus.brokerDown = true;
    try {
      await db.transaction((tx) =>
        appendToOutbox(tx, pinged.create({ n: 2 }, { occurredAt: new Date() })).then(() =>
          appendToOutbox(tx, pinged.create({ n: 3 }, { occurredAt: new Date() })),
        ),
      );

      const refused = await call('/internal/health', platform);
      const health = await call('/internal/health', operator);

      expect(refused.status).toBe(403);
      expect(health.status).toBe(200);
      expect(await health.json()).toEqual({
        data: {
          ready: true,
          checks: [
            { name: 'db', result: 'ok', passed: true },
            { name: 'bus', result: 'degraded: message bus not connected', passed: true },
          ],
          outboxBacklog: 2,
          oldestUnsentSeconds: expect.any(Number),
        },
      });
    } finally {
      bus.brokerDown = false;
      running.relay.start();
    }
    await waitUntil(() => applied.includes(3), 'the relay to publish the backlog');
    const drained = (await (await call('/internal/health', operator)).json()) as { data: unknown };
    expect(drained.data).toMatchObject({ ready: true, outboxBacklog: 0, oldestUnsentSeconds: null });
  });
});
