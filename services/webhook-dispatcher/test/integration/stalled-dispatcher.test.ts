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

// Two replicas on one PostgreSQL database and a shared manual clock (issue #34). Replica A leases
// an endpoint's batch, then stalls (as a process paused by a long GC, a blocked event loop or
// SIGSTOP would: nothing of it runs, lease renewal included) for longer than its lease. Replica B
// takes the expired lease and delivers the batch. When A resumes, it must not send any of the
// batch again, nor record anything: every delivery reaches the receiver once.

const LEASE_MS = 6000;
const PER_ENDPOINT = 5;
const worker = { pollIntervalMs: 10, leaseMs: LEASE_MS };

/** A pause of replica A that the test ends. */
class Stall {
  private release: () => void = () => undefined;
  private reached: () => void = () => undefined;
  armed = false;
  active = false;
  /** Settles when A has stalled. */
  readonly stalled = new Promise<void>((resolve) => (this.reached = resolve));
  private readonly gate = new Promise<void>((resolve) => (this.release = resolve));

  /** Called by A at the point it stalls; the first call after arming pauses it until `resume`. */
  async here(): Promise<void> {
    if (!this.armed) return;
    this.armed = false;
    this.active = true;
    this.reached();
    await this.gate;
    this.active = false;
  }

  resume(): void {
    this.release();
  }
}

let h: Harness;
let second: RunningWebhookDispatcher;
let secondDb: Database;
let stall = new Stall();
/** Runs in A after each of its POSTs is answered (a test's way to move time or act meanwhile). */
let afterSendOfA: (() => Promise<void>) | undefined;
// Which replica sent which public event ids.
const sentByA: string[] = [];
const sentByB: string[] = [];

function recording(sent: string[], afterSend?: () => Promise<void>): FetchFn {
  return async (url, options) => {
    sent.push(String(options.headers?.['webhook-id']));
    const response = await guardedFetch(url, options);
    // A stall after the POST was answered, before the worker hears of it.
    await afterSend?.();
    return response;
  };
}

beforeAll(async () => {
  h = await startHarness({
    overrides: {
      fetch: recording(sentByA, async () => {
        await afterSendOfA?.();
        await stall.here();
      }),
      worker,
    },
  });
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
    fetch: recording(sentByB),
    worker,
  });

  // A stalled process renews nothing: A's renewals wait while it is paused.
  const endpointsOfA = h.dispatcher.context.endpoints;
  const renew = endpointsOfA.renewLeases.bind(endpointsOfA);
  endpointsOfA.renewLeases = async (...args) => {
    if (stall.active) return;
    await renew(...args);
  };
});

afterAll(async () => {
  stall.resume();
  await second.stop();
  await secondDb.close();
  await h.stop();
  // The fetch overrides wrap guardedFetch, so stop() leaves its pools to the test.
  await closeGuardedAgents();
});

beforeEach(async () => {
  // Both replicas idle while the backlog builds up.
  await h.dispatcher.worker.stop();
  await second.worker.stop();
  stall = new Stall();
  afterSendOfA = undefined;
  sentByA.length = 0;
  sentByB.length = 0;
});

let seq = 0;

/** An endpoint of a new platform with `PER_ENDPOINT` deliveries pending, and its receiver. */
async function backlog() {
  seq += 1;
  const platformId = `plat_stalled_${seq}`;
  const receiver = await startReceiver();
  const res = await h.call(platformId, 'POST', '/v1/svc/webhooks', {
    url: receiver.url,
    events: ['grace_period.reminder'],
  });
  expect(res.status).toBe(201);
  const endpointId = (res.body.data as { id: string }).id;
  const now = h.clock.now();
  for (let i = 0; i < PER_ENDPOINT; i += 1) {
    await h.bus.publish(
      gracePeriodReminder.create(
        {
          gracePeriodId: `gp_${seq}_${i}`,
          violationId: `viol_${seq}_${i}`,
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
  }
  expect(await h.dispatcher.context.deliveries.countPending(h.dispatcher.db)).toBe(PER_ENDPOINT);
  return { platformId, endpointId, receiver };
}

/** A stalls; its lease runs out; B takes the endpoint and delivers everything; then A resumes and finishes. */
async function stallAPastItsLease() {
  h.dispatcher.worker.start();
  await stall.stalled;
  h.clock.advance(LEASE_MS + 1000);
  second.worker.start();
  await waitFor(async () => (await h.dispatcher.context.deliveries.countPending(h.dispatcher.db)) === 0, {
    timeoutMs: 10_000,
    what: 'the other replica delivers the batch',
  });
  stall.resume();
  // Let A's worker take its batch back in hand, then wait for it to finish that batch.
  await new Promise((resolve) => setTimeout(resolve, 100));
  await h.dispatcher.worker.stop();
  await second.worker.stop();
  // Anything sent twice would have arrived by now.
  await new Promise((resolve) => setTimeout(resolve, 100));
}

function hitsPerId(received: { headers: Record<string, unknown> }[]): Map<string, number> {
  const perId = new Map<string, number>();
  for (const r of received) {
    const id = String(r.headers['webhook-id']);
    perId.set(id, (perId.get(id) ?? 0) + 1);
  }
  return perId;
}

async function attemptsOf(platformId: string, endpointId: string) {
  const res = await h.call(platformId, 'GET', `/v1/svc/webhooks/${endpointId}/deliveries`);
  expect(res.status).toBe(200);
  return (res.body.data as { status: string; attempts: unknown[] }[]).map((d) => ({
    status: d.status,
    attempts: d.attempts.length,
  }));
}

it('when a replica stalls past its lease before sending its batch, then the other one sends each delivery once and the stalled one sends nothing', async () => {
  const { platformId, endpointId, receiver } = await backlog();
  try {
    // A is paused right after its lease statement hands it the batch, before its first POST.
    const endpointsOfA = h.dispatcher.context.endpoints;
    const lease = endpointsOfA.leaseDue.bind(endpointsOfA);
    endpointsOfA.leaseDue = async (...args) => {
      const leased = await lease(...args);
      if (leased.some((l) => l.endpoint.id === endpointId)) await stall.here();
      return leased;
    };
    stall.armed = true;
    try {
      await stallAPastItsLease();
    } finally {
      endpointsOfA.leaseDue = lease;
    }

    const perId = hitsPerId(receiver.received);
    expect(perId.size).toBe(PER_ENDPOINT);
    expect([...perId.values()]).toEqual(new Array<number>(PER_ENDPOINT).fill(1));
    expect(sentByB).toHaveLength(PER_ENDPOINT);
    expect(sentByA).toEqual([]);
    // Recorded once, by the replica that sent them.
    expect(await attemptsOf(platformId, endpointId)).toEqual(
      new Array(PER_ENDPOINT).fill({ status: 'succeeded', attempts: 1 }),
    );
  } finally {
    await receiver.close();
  }
});

it('when a replica stalls past its lease in the middle of its batch, then it sends none of the rest when it resumes', async () => {
  const { platformId, endpointId, receiver } = await backlog();
  try {
    // A sends the oldest delivery, is answered, and is paused before it hears of the answer.
    stall.armed = true;
    await stallAPastItsLease();

    const perId = hitsPerId(receiver.received);
    expect(perId.size).toBe(PER_ENDPOINT);
    expect(sentByA).toHaveLength(1);
    const [sentBeforeTheStall] = sentByA;
    // The one A sent and could not record is sent again by B (at least once: receivers dedupe by
    // webhook-id); every other delivery reaches the receiver exactly once.
    expect(perId.get(String(sentBeforeTheStall))).toBe(2);
    expect([...perId].filter(([id]) => id !== sentBeforeTheStall).map(([, n]) => n)).toEqual(
      new Array<number>(PER_ENDPOINT - 1).fill(1),
    );
    expect(sentByB).toHaveLength(PER_ENDPOINT);
    expect(await attemptsOf(platformId, endpointId)).toEqual(
      new Array(PER_ENDPOINT).fill({ status: 'succeeded', attempts: 1 }),
    );
  } finally {
    await receiver.close();
  }
});

it('when a stalled replica renews, records or releases a lease another one has taken since, then none of it takes effect', async () => {
  const { endpointId, receiver } = await backlog();
  try {
    const { endpoints, deliveries } = h.dispatcher.context;
    const db = h.dispatcher.db;
    const leaseOf = async (owner: string) => {
      const now = h.clock.now();
      const leased = await endpoints.leaseDue(db, owner, 10, [], now, new Date(now.getTime() + LEASE_MS), 20);
      const found = leased.find((l) => l.endpoint.id === endpointId);
      if (found === undefined) throw new Error(`${owner} did not get the endpoint`);
      return found;
    };
    const leaseRow = async () =>
      (
        await db.query<{ lease_owner: string | null; lease_until: Date | null }>(
          'SELECT lease_owner, lease_until FROM webhook_endpoints WHERE id = $1',
          [endpointId],
        )
      ).rows[0];

    const a = await leaseOf('worker_a');
    const lease = { endpointId, owner: 'worker_a', token: a.leaseToken };
    const first = a.due[0];
    if (first === undefined) throw new Error('no delivery leased');
    expect(await endpoints.checkLease(db, lease, first, h.clock.now())).toBe('send');
    // Past its lease: still A's, but expired, so A sends no more.
    h.clock.advance(LEASE_MS + 1000);
    expect(await endpoints.checkLease(db, lease, first, h.clock.now())).toBe('stop');

    const b = await leaseOf('worker_b');
    expect(b.leaseToken).toBeGreaterThan(a.leaseToken);
    expect(await endpoints.checkLease(db, lease, first, h.clock.now())).toBe('lost');
    const held = await leaseRow();

    // A's late renewal extends nothing.
    await endpoints.renewLeases(db, 'worker_a', [{ endpointId, token: a.leaseToken }], new Date(8.64e15));
    expect(await leaseRow()).toEqual(held);

    // A's late record of its batch writes nothing: no attempt, no delivery state, B keeps the lease.
    const batchOf = (leased: typeof a) => ({
      endpointId,
      leaseToken: leased.leaseToken,
      succeededAt: h.clock.now(),
      attempts: leased.due.map((d) => ({
        deliveryId: d.id,
        number: d.attemptCount + 1,
        attemptedAt: h.clock.now(),
        outcome: 'succeeded' as const,
        responseStatus: 200,
        responseBody: null,
        durationMs: 1,
        error: null,
        nextRetryAt: null,
      })),
      updates: leased.due.map((d) => ({
        id: d.id,
        status: 'succeeded' as const,
        attemptCount: d.attemptCount + 1,
        nextAttemptAt: null,
        lastResponseStatus: 200,
        lastError: null,
      })),
    });
    expect(await deliveries.recordSucceeded(db, 'worker_a', [batchOf(a)])).toEqual([]);
    expect(
      await h.dispatcher.context.attempts.of(
        db,
        a.due.map((d) => d.id),
      ),
    ).toEqual([]);
    expect(await deliveries.countPending(db)).toBe(PER_ENDPOINT);
    expect(await leaseRow()).toEqual(held);

    // Nor does its release.
    expect(await endpoints.releaseLease(db, lease, h.clock.now())).toBe(false);
    expect(await leaseRow()).toEqual(held);

    // B, which holds the lease, records its batch.
    expect(await deliveries.recordSucceeded(db, 'worker_b', [batchOf(b)])).toEqual([endpointId]);
    expect(await deliveries.countPending(db)).toBe(0);
    expect((await leaseRow())?.lease_owner).toBeNull();
  } finally {
    await receiver.close();
  }
});

// Last: the disabled endpoint's undelivered rest stays pending.
it('when the platform disables its endpoint in the middle of a batch, then no POST of it leaves more than a second later', async () => {
  const { platformId, endpointId, receiver } = await backlog();
  try {
    // Each POST takes 0.4 s of the service's clock; the endpoint is disabled once the first is answered.
    afterSendOfA = async () => {
      h.clock.advance(400);
      if (sentByA.length === 1) {
        const patched = await h.call(platformId, 'PATCH', `/v1/svc/webhooks/${endpointId}`, {
          status: 'disabled',
        });
        expect(patched.status).toBe(200);
      }
    };
    h.dispatcher.worker.start();
    await waitFor(async () => (await attemptsOf(platformId, endpointId)).some((d) => d.attempts > 0), {
      timeoutMs: 10_000,
      what: "A's batch recorded",
    });
    await h.dispatcher.worker.stop();
    // At most those at 0, 0.4 and 0.8 s of the batch: by 1.2 s the lease's check has found the
    // endpoint disabled. The rest waits, unsent.
    const sent = sentByA.length;
    expect(sent).toBeGreaterThanOrEqual(1);
    expect(sent).toBeLessThanOrEqual(3);
    expect(hitsPerId(receiver.received).size).toBe(sent);
    expect(await attemptsOf(platformId, endpointId)).toEqual([
      ...new Array(PER_ENDPOINT - sent).fill({ status: 'pending', attempts: 0 }),
      ...new Array(sent).fill({ status: 'succeeded', attempts: 1 }),
    ]);
  } finally {
    await receiver.close();
  }
});
