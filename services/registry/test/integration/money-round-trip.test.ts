import fc from 'fast-check';
import { systemClock } from '@svc/clock';
import { paymentDue, usageReported } from '@svc/contracts/billing';
import type { EventEnvelope } from '@svc/contracts/common';
import { newId } from '@svc/ids';
import { createLogger } from '@svc/logger';
import {
  AmqpMessageBus,
  appendToOutbox,
  InProcessMessageBus,
  messagingMigrations,
  OutboxRelay,
  type MessageBus,
} from '@svc/messaging';
import { createDatabase, runMigrations, type Database } from '@svc/storage';
import { freshPostgresDatabase, isolatedAmqpUrl, uniqueSuffix, waitFor } from '@svc/test-kit';
import { BoxStatsRepository } from '../../src/data-access/box-stats.repository';
import { periodBounds } from '../../src/domain/box-stats';
import { boxStatsSubscriptions } from '../../src/entry-points/messaging/box-stats.consumer';
import { registryMigrations } from '../../src/start';

// ADR 0039: no amount changes between billing's producer and the registry's box statistics,
// whatever its size up to the largest a column keeps. Each amount goes the whole way: the
// producer's event (bigint in) -> the outbox (jsonb in PostgreSQL) -> the relay -> the bus (in
// process, then RabbitMQ) -> the registry's consumer and its parse -> the read model's columns,
// read back as text and as the statistics' sums.

const TWO_TO_53 = 2n ** 53n;
const MAX_CENTS = 9_223_372_036_854_775_807n;
const PERIOD = '2026-11';
const logger = createLogger('money-round-trip', { level: process.env.TEST_LOG_LEVEL ?? 'silent' });
const stats = new BoxStatsRepository();

/** Amounts up to `max`, with 0, 1, the neighbours of 2^53 and `max` itself drawn often. */
const centsUpTo = (max: bigint) =>
  fc.oneof(
    fc.constantFrom(0n, 1n, TWO_TO_53 - 1n, TWO_TO_53, TWO_TO_53 + 1n, max),
    fc.bigInt({ min: TWO_TO_53 - 1000n, max: TWO_TO_53 + 1000n }),
    fc.bigInt({ min: 0n, max }),
  );
// A fee notice and a report of two revenue types whose total (and the box's month) still fits.
const amounts = fc.record({
  fee: centsUpTo(MAX_CENTS),
  subscriptions: centsUpTo(MAX_CENTS / 2n),
  tips: centsUpTo(MAX_CENTS / 2n),
});
type Amounts = { fee: bigint; subscriptions: bigint; tips: bigint };

const cleanup: Array<() => Promise<void>> = [];
let producerDb: Database;
let registryDb: Database;

/** Billing's two events for one license of its own box, built as billing builds them (bigints in). */
function billingEvents(boxId: string, licenseId: string, a: Amounts): EventEnvelope[] {
  const meta = { occurredAt: new Date('2026-11-20T00:00:00.000Z'), platformId: 'plat_payer' };
  const common = { licenseId, boxId, period: PERIOD, currency: 'USD', dueDate: '2026-12-15T00:00:00.000Z' };
  return [
    paymentDue.create(
      {
        ...common,
        paymentId: newId('led'),
        kind: 'fee',
        version: 1,
        amountCents: a.fee,
        recipient: 'plat_owner',
        payerPlatformId: 'plat_payer',
      },
      meta,
    ),
    usageReported.create(
      {
        ...common,
        reportId: newId('usage'),
        licenseePlatformId: 'plat_payer',
        licenseePlatformName: 'Payer',
        boxOwnerPlatformId: 'plat_owner',
        version: 1,
        metrics: { subscribers: 3 },
        users: 3,
        revenueCents: { subscriptions: a.subscriptions, messages: 0n, tips: a.tips, ads: 0n, other: 0n },
        totalRevenueCents: a.subscriptions + a.tips,
        royaltyRate: 0.15,
        royaltyDueCents: 0n,
        reportedAt: '2026-11-20T00:00:00.000Z',
      },
      meta,
    ),
  ];
}

/** What the read model holds for the license and its box: the columns as text, the statistics' sums. */
async function readModel(boxId: string, licenseId: string) {
  const fees = await registryDb.query<{ amount: string }>(
    'SELECT amount_cents::text AS amount FROM stats_fees WHERE license_id = $1',
    [licenseId],
  );
  const usage = await registryDb.query<{ subscriptions: string; tips: string; total: string }>(
    `SELECT subscriptions_cents::text AS subscriptions, tips_cents::text AS tips, total_cents::text AS total
       FROM stats_usage WHERE license_id = $1`,
    [licenseId],
  );
  const statistics = await stats.statistics(registryDb, boxId, PERIOD, periodBounds(PERIOD));
  return { fee: fees.rows[0]?.amount, usage: usage.rows[0], revenue: statistics.revenueCents };
}

/** The producer's outbox relayed onto `bus`, the registry's box statistics consuming from it. */
async function pipeline(bus: MessageBus, queueSuffix: string) {
  for (const subscription of boxStatsSubscriptions({ db: registryDb, stats, clock: systemClock })) {
    await bus.subscribe({ ...subscription, queue: `${subscription.queue}${queueSuffix}` });
  }
  const relay = new OutboxRelay({ db: producerDb, bus, logger, name: `money${queueSuffix}` });
  return async (events: EventEnvelope[]) => {
    await producerDb.transaction((tx) => appendToOutbox(tx, ...events));
    await relay.publishPending();
  };
}

async function expectUnchanged(send: (events: EventEnvelope[]) => Promise<void>, a: Amounts): Promise<void> {
  const boxId = newId('box');
  const licenseId = newId('lic');
  await send(billingEvents(boxId, licenseId, a));
  const held = await waitFor(
    async () => {
      const model = await readModel(boxId, licenseId);
      return model.fee !== undefined && model.usage !== undefined ? model : undefined;
    },
    { what: `the read model of ${licenseId}`, timeoutMs: 10_000 },
  );
  expect(held.fee).toBe(a.fee.toString());
  expect(held.usage).toEqual({
    subscriptions: a.subscriptions.toString(),
    tips: a.tips.toString(),
    total: (a.subscriptions + a.tips).toString(),
  });
  expect(held.revenue.byType).toEqual({
    subscriptions: a.subscriptions,
    messages: 0n,
    tips: a.tips,
    fees: a.fee,
  });
  // The month's revenue may pass the largest int8: a numeric sum read as text stays exact.
  expect(held.revenue.monthly).toBe(a.subscriptions + a.tips + a.fee);
}

beforeAll(async () => {
  const producer = await freshPostgresDatabase('money_producer');
  const registry = await freshPostgresDatabase('money_registry');
  cleanup.push(producer.drop, registry.drop);
  producerDb = await createDatabase({ url: producer.url });
  registryDb = await createDatabase({ url: registry.url });
  cleanup.unshift(
    () => producerDb.close(),
    () => registryDb.close(),
  );
  await runMigrations(producerDb, [messagingMigrations]);
  await runMigrations(registryDb, registryMigrations());
}, 60_000);

afterAll(async () => {
  for (const step of cleanup) await step();
});

describe('money round trip: billing -> outbox -> bus -> registry box statistics', () => {
  it('when any amount up to the largest a column keeps goes through the in-process bus, then the read model holds it unchanged', async () => {
    const bus = new InProcessMessageBus({ logger, retryBackoff: { initialMs: 1, maxMs: 5 } });
    cleanup.unshift(() => bus.close());
    const send = await pipeline(bus, '');
    await fc.assert(
      fc.asyncProperty(amounts, (a) => expectUnchanged(send, a)),
      { numRuns: 40 },
    );
  }, 120_000);

  it('when any amount up to the largest a column keeps goes through RabbitMQ, then the read model holds it unchanged', async () => {
    const amqp = await isolatedAmqpUrl('money_round_trip');
    const exchange = `test.money.${uniqueSuffix()}`;
    const bus = await AmqpMessageBus.connect({
      url: amqp.url,
      exchange,
      logger,
      retryBackoff: { initialMs: 10 },
    });
    cleanup.unshift(() => bus.close(), amqp.drop);
    const send = await pipeline(bus, `.${uniqueSuffix()}`);
    await fc.assert(
      fc.asyncProperty(amounts, (a) => expectUnchanged(send, a)),
      { numRuns: 25 },
    );
  }, 180_000);
});
