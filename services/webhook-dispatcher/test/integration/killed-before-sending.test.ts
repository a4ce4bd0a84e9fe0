import { loadConfig } from '@svc/config';
import { gracePeriodReminder } from '@svc/contracts/enforcement';
import { closeGuardedAgents } from '@svc/fetch-guard';
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

// ADR 0036: the intake hands the deliveries it committed to the worker in memory, and the worker
// sends them under a lease taken in the database. Replica A commits a burst, leases the endpoint
// and holds the batch in memory (no read-back), then dies before its first POST leaves: nothing of
// it runs any more (no POST, no renewal). Once A's lease has expired, replica B finds the
// deliveries in the database and sends each once, in order, and the delivery log shows them.

const LEASE_MS = 6000;
const EVENTS = 3;

let h: Harness;
let b: RunningWebhookDispatcher | undefined;
let bDb: Database | undefined;
let killed = false;
let reachedFirstPost: () => void = () => undefined;
const firstPost = new Promise<void>((resolve) => (reachedFirstPost = resolve));
let endA: (err: Error) => void = () => undefined;
const endOfA = new Promise<never>((_resolve, reject) => (endA = reject));
endOfA.catch(() => undefined);

// A's POST never leaves: the process is gone by the time it would.
const dyingFetch: FetchFn = async () => {
  killed = true;
  reachedFirstPost();
  return endOfA;
};

beforeAll(async () => {
  h = await startHarness({
    overrides: { fetch: dyingFetch, worker: { pollIntervalMs: 10, leaseMs: LEASE_MS } },
  });
  // A dead process renews nothing.
  const endpointsOfA = h.dispatcher.context.endpoints;
  const renew = endpointsOfA.renewLeases.bind(endpointsOfA);
  endpointsOfA.renewLeases = async (...args) => {
    if (!killed) await renew(...args);
  };
});

afterAll(async () => {
  endA(new Error('killed'));
  await b?.stop();
  await bDb?.close();
  await h.stop();
  await closeGuardedAgents();
});

it('when a replica dies after committing and leasing a batch, before sending it, then another sends each delivery once, in order, after the lease expires', async () => {
  const platformId = 'plat_killedBeforeSending01';
  const receiver = await startReceiver();
  try {
    const res = await h.call(platformId, 'POST', '/v1/svc/webhooks', {
      url: receiver.url,
      events: ['grace_period.reminder'],
    });
    expect(res.status).toBe(201);
    const endpointId = (res.body.data as { id: string }).id;
    const { deliveries } = h.dispatcher.context;
    const read: string[] = [];
    const findMany = deliveries.findMany.bind(deliveries);
    deliveries.findMany = async (q, ids) => {
      read.push(...ids);
      return findMany(q, ids);
    };

    const now = h.clock.now();
    for (let i = 0; i < EVENTS; i += 1)
      await h.bus.publish(
        gracePeriodReminder.create(
          {
            gracePeriodId: `gp_killed_${i}`,
            violationId: `viol_killed_${i}`,
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
          { occurredAt: now, platformId },
        ),
      );
    await firstPost;
    // A held the batch in memory under its lease in the database; it read none of it back.
    expect(read).toEqual([]);
    const { rows } = await h.dispatcher.db.query<{ lease_owner: string | null }>(
      'SELECT lease_owner FROM webhook_endpoints WHERE id = $1',
      [endpointId],
    );
    expect(rows[0]?.lease_owner).toBe(h.dispatcher.worker.owner);
    expect(receiver.received).toHaveLength(0);

    // Past A's lease, replica B starts on the same database.
    h.clock.advance(LEASE_MS + 1000);
    bDb = await createDatabase({ url: h.databaseUrl });
    b = await startWebhookDispatcher(
      loadConfig(webhookDispatcherConfigSchema, {
        PORT: '0',
        HOST: '127.0.0.1',
        DATABASE_URL: h.databaseUrl,
        INTERNAL_JWT_SECRET: JWT_SECRET,
        SVC_ALLOW_PRIVATE_FETCH: 'true',
        LOG_LEVEL: 'silent',
      }),
      { db: bDb, bus: h.bus, logger: silent, clock: h.clock, worker: { pollIntervalMs: 10 } },
    );
    await waitFor(async () => (await deliveries.countPending(h.dispatcher.db)) === 0, {
      timeoutMs: 10_000,
      what: 'the other replica delivers the batch',
    });

    const bodies = receiver.received.map((r) => JSON.parse(r.body) as { data: { gracePeriodId: string } });
    expect(bodies.map((body) => body.data.gracePeriodId)).toEqual([
      'gp_killed_0',
      'gp_killed_1',
      'gp_killed_2',
    ]);
    const log = await h.call(platformId, 'GET', `/v1/svc/webhooks/${endpointId}/deliveries`);
    const shown = log.body.data as { status: string; attempts: unknown[]; payload: unknown }[];
    expect(shown.map((d) => [d.status, d.attempts.length])).toEqual(new Array(EVENTS).fill(['succeeded', 1]));
    // Newest first: the payload each shows is the body its receiver got.
    expect(shown.map((d) => d.payload).reverse()).toEqual(bodies);
  } finally {
    await receiver.close();
  }
});
