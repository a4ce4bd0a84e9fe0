import { gracePeriodReminder } from '@svc/contracts/enforcement';
import { refuseConnections, waitFor } from '@svc/test-kit';
import { DEFAULT_LEASE_MS } from '../../src/domain/delivery-worker';
import { PLATFORM_EVENTS_QUEUE } from '../../src/entry-points/messaging/platform-events.consumer';
import { startHarness, startReceiver, type Harness } from '../fixtures/dispatcher-harness';

// A burst of events for several platforms at once: the consumer records them in batches (one
// transaction for many events, ADR 0022) and the worker serves the endpoints together. Every
// event must reach its platform's endpoint once, oldest delivery first, whatever fails.

const PLATFORMS = 4;
const PER_PLATFORM = 90;

let h: Harness;
let seq = 0;
beforeAll(async () => {
  // The service's own POST timeout (10 s), not the harness's 300 ms: the receivers run in this
  // process, and on a machine loaded by other test files a stalled event loop can hold an answer
  // past 300 ms. A POST that times out after the receiver got it is sent again (at least once,
  // as webhooks are), which is not what these tests are about: the burst and the outage.
  h = await startHarness({ env: { WEBHOOK_TIMEOUT_MS: '10000' } });
});
afterAll(async () => {
  await h.stop();
});

function reminder(platformId: string, n: number) {
  const now = h.clock.now();
  return gracePeriodReminder.create(
    {
      gracePeriodId: `gp_${platformId}_${n}`,
      violationId: 'viol_1',
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
  );
}

async function platformsWithReceivers() {
  seq += 1;
  return Promise.all(
    Array.from({ length: PLATFORMS }, async (_, p) => {
      const platformId = `plat_burst_${seq}_${p}`;
      const receiver = await startReceiver();
      const res = await h.call(platformId, 'POST', '/v1/svc/webhooks', {
        url: receiver.url,
        events: ['grace_period.reminder'],
      });
      expect(res.status).toBe(201);
      return { platformId, receiver, endpointId: res.body.data.id as string };
    }),
  );
}

/** The grace-period ids each receiver got, in arrival order, and how many arrived twice. */
function arrivals(receiver: Awaited<ReturnType<typeof startReceiver>>) {
  const ids = receiver.received.map((r) => String(r.headers['webhook-id']));
  const gracePeriods = receiver.received.map(
    (r) => (JSON.parse(r.body) as { data: { gracePeriodId: string } }).data.gracePeriodId,
  );
  return { gracePeriods, duplicates: ids.length - new Set(ids).size };
}

describe('a burst of events', () => {
  it('when events for several platforms arrive at once with a malformed one among them, then each well-formed one is delivered once, oldest first, and only the malformed one is dead-lettered', async () => {
    const platforms = await platformsWithReceivers();
    try {
      const malformed = reminder(platforms[0]!.platformId, -1);
      delete (malformed.data as Partial<typeof malformed.data>).gracePeriodId;
      const events = platforms.flatMap(({ platformId }) =>
        Array.from({ length: PER_PLATFORM }, (_, n) => reminder(platformId, n)),
      );
      await Promise.all(
        [...events.slice(0, 100), malformed, ...events.slice(100)].map((e) => h.bus.publish(e)),
      );

      await waitFor(
        () => platforms.every(({ receiver }) => receiver.received.length >= PER_PLATFORM) || undefined,
        { what: 'every delivery', timeoutMs: 30_000 },
      );
      await new Promise((r) => setTimeout(r, 300));
      for (const { platformId, receiver, endpointId } of platforms) {
        const { gracePeriods, duplicates } = arrivals(receiver);
        expect(duplicates).toBe(0);
        expect([...gracePeriods].sort()).toEqual(
          Array.from({ length: PER_PLATFORM }, (_, n) => `gp_${platformId}_${n}`).sort(),
        );
        // Oldest first: the order of arrival is the order the deliveries were recorded in. The
        // worker records a success after the receiver answers, so on a loaded machine the last
        // ones may still be on their way to `succeeded` when the receiver has them all.
        const recorded = await waitFor(
          async () => {
            const listed = await h.call(
              platformId,
              'GET',
              `/v1/svc/webhooks/${endpointId}/deliveries?limit=100`,
            );
            const rows = (listed.body.data as Array<{ eventId: string; status: string }>).reverse();
            return rows.length === PER_PLATFORM && rows.every((d) => d.status === 'succeeded')
              ? rows
              : undefined;
          },
          { what: 'every delivery recorded as succeeded', timeoutMs: 10_000 },
        );
        expect(receiver.received.map((r) => String(r.headers['webhook-id']))).toEqual(
          recorded.map((d) => d.eventId),
        );
      }
      const dead = await h.bus.deadLetters(PLATFORM_EVENTS_QUEUE);
      expect(dead.map((d) => d.envelope.id)).toEqual([malformed.id]);
    } finally {
      await Promise.all(platforms.map(({ receiver }) => receiver.close()));
    }
  }, 60_000);

  it('when the database refuses connections in the middle of a burst, then every event is still delivered exactly once', async () => {
    const platforms = await platformsWithReceivers();
    let outage: Promise<{ reopen(): Promise<void> }> | undefined;
    try {
      const events = platforms.flatMap(({ platformId }) =>
        Array.from({ length: PER_PLATFORM }, (_, n) => reminder(platformId, n)),
      );
      const published = Promise.all(events.map((e) => h.bus.publish(e)));
      // Cut the database off as soon as the first deliveries arrive: batches are being recorded
      // and sent, and the transactions in flight die with their connections.
      await waitFor(() => platforms.some(({ receiver }) => receiver.received.length > 0) || undefined, {
        what: 'the first delivery',
      });
      outage = refuseConnections(h.databaseUrl);
      await outage;
      await new Promise((r) => setTimeout(r, 1000));
      await (await outage).reopen();
      await published;
      // A batch whose record and lease release both failed in the outage leaves its endpoint
      // leased until the lease runs out. Real time runs on meanwhile; the harness's clock must be
      // moved past the lease, or that endpoint stays leased for good (CI saw this with two workers).
      h.clock.advance(DEFAULT_LEASE_MS + 1000);

      await waitFor(
        () => platforms.every(({ receiver }) => receiver.received.length >= PER_PLATFORM) || undefined,
        { what: 'every delivery', timeoutMs: 40_000 },
      );
      await new Promise((r) => setTimeout(r, 500));
      for (const { platformId, receiver } of platforms) {
        const { gracePeriods, duplicates } = arrivals(receiver);
        expect(duplicates).toBe(0);
        expect([...gracePeriods].sort()).toEqual(
          Array.from({ length: PER_PLATFORM }, (_, n) => `gp_${platformId}_${n}`).sort(),
        );
      }
    } finally {
      if (outage !== undefined) await (await outage).reopen();
      await Promise.all(platforms.map(({ receiver }) => receiver.close()));
    }
  }, 90_000);
});
