import { loadConfig } from '@svc/config';
import { gracePeriodReminder } from '@svc/contracts/enforcement';
import { closeGuardedAgents, guardedFetch } from '@svc/fetch-guard';
import { createDatabase, type Database } from '@svc/storage';
import { waitFor } from '@svc/test-kit';
import {
  startWebhookDispatcher,
  webhookDispatcherConfigSchema,
  type RunningWebhookDispatcher,
} from '../../src';
import type { FetchFn } from '../../src/domain/ports';
import {
  JWT_SECRET,
  silent,
  startHarness,
  startReceiver,
  type Harness,
} from '../fixtures/dispatcher-harness';

// Two replicas on one PostgreSQL database: a backlog of deliveries, both workers started at
// once, and every delivery must be sent exactly once, one at a time per endpoint. Only the
// endpoint lease (FOR UPDATE SKIP LOCKED) keeps the two workers from sending the same one.

const ENDPOINTS = 12;
const PER_ENDPOINT = 15;
const worker = { concurrency: 4, maxPerLease: 3, pollIntervalMs: 10 };

function counting(counter: { n: number }): FetchFn {
  return (url, options) => {
    counter.n += 1;
    return guardedFetch(url, options);
  };
}

let h: Harness;
let second: RunningWebhookDispatcher;
let secondDb: Database;
const sentBy = { a: { n: 0 }, b: { n: 0 } };
const receivers: Awaited<ReturnType<typeof startReceiver>>[] = [];
const inFlight: number[] = [];
const maxInFlight: number[] = [];

beforeAll(async () => {
  h = await startHarness({ overrides: { fetch: counting(sentBy.a), worker } });
  const config = loadConfig(webhookDispatcherConfigSchema, {
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: h.databaseUrl,
    INTERNAL_JWT_SECRET: JWT_SECRET,
    SVC_ALLOW_PRIVATE_FETCH: 'true',
    WEBHOOK_TIMEOUT_MS: '2000',
    LOG_LEVEL: 'silent',
  });
  secondDb = await createDatabase({ url: h.databaseUrl });
  second = await startWebhookDispatcher(config, {
    db: secondDb,
    bus: h.bus,
    logger: silent,
    clock: h.clock,
    fetch: counting(sentBy.b),
    worker,
  });
});

afterAll(async () => {
  await second.stop();
  await secondDb.close();
  await Promise.all(receivers.map((r) => r.close()));
  await h.stop();
  // The fetch override wraps guardedFetch, so stop() leaves its pools to the test.
  await closeGuardedAgents();
});

it('when two dispatchers share a backlog, then each delivery is sent exactly once and one at a time per endpoint', async () => {
  // Both workers idle while the backlog builds up.
  await h.dispatcher.worker.stop();
  await second.worker.stop();

  for (let e = 0; e < ENDPOINTS; e += 1) {
    inFlight.push(0);
    maxInFlight.push(0);
    receivers.push(
      await startReceiver((_req, res) => {
        inFlight[e] = (inFlight[e] ?? 0) + 1;
        maxInFlight[e] = Math.max(maxInFlight[e] ?? 0, inFlight[e] ?? 0);
        setTimeout(() => {
          inFlight[e] = (inFlight[e] ?? 0) - 1;
          res.writeHead(200).end('ok');
        }, 3);
      }),
    );
    const res = await h.call(`plat_two_${e}`, 'POST', '/v1/svc/webhooks', {
      url: receivers[e]?.url,
      events: ['grace_period.reminder'],
    });
    expect(res.status).toBe(201);
  }

  const now = h.clock.now();
  const publishes: Promise<void>[] = [];
  for (let i = 0; i < ENDPOINTS * PER_ENDPOINT; i += 1) {
    publishes.push(
      h.bus.publish(
        gracePeriodReminder.create(
          {
            gracePeriodId: `gp_${i}`,
            violationId: `viol_${i}`,
            boxId: 'box_1',
            claimId: 'claim_1',
            identityName: 'Ada',
            boxOwnerPlatformId: 'plat_owner',
            policy: 'LICENSE',
            status: 'active',
            startedAt: now.toISOString(),
            expiresAt: new Date(now.getTime() + 86_400_000).toISOString(),
            daysRemaining: 23,
            avatarIds: ['av_1'],
            reminderDay: 7,
          },
          { occurredAt: now, platformId: `plat_two_${i % ENDPOINTS}` },
        ),
      ),
    );
  }
  await Promise.all(publishes);
  expect(await h.dispatcher.context.deliveries.countPending(h.dispatcher.db)).toBe(ENDPOINTS * PER_ENDPOINT);
  expect(receivers.every((r) => r.received.length === 0)).toBe(true);

  h.dispatcher.worker.start();
  second.worker.start();

  await waitFor(async () => (await h.dispatcher.context.deliveries.countPending(h.dispatcher.db)) === 0, {
    timeoutMs: 20_000,
  });
  // Anything sent twice would arrive within a moment.
  await new Promise((resolve) => setTimeout(resolve, 200));

  const ids = receivers.flatMap((r) => r.received.map((x) => String(x.headers['webhook-id'])));
  const perId = new Map<string, number>();
  for (const id of ids) perId.set(id, (perId.get(id) ?? 0) + 1);
  expect(ids).toHaveLength(ENDPOINTS * PER_ENDPOINT);
  expect(perId.size).toBe(ENDPOINTS * PER_ENDPOINT);
  expect([...perId.values()].filter((n) => n > 1)).toEqual([]);
  expect(receivers.map((r) => r.received.length)).toEqual(new Array<number>(ENDPOINTS).fill(PER_ENDPOINT));
  // One delivery in flight per endpoint across both replicas, and both replicas did work.
  expect(Math.max(...maxInFlight)).toBe(1);
  expect(sentBy.a.n + sentBy.b.n).toBe(ENDPOINTS * PER_ENDPOINT);
  expect(sentBy.a.n).toBeGreaterThan(0);
  expect(sentBy.b.n).toBeGreaterThan(0);
});
