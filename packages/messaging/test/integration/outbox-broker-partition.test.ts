import { Registry } from 'prom-client';
import type { EventEnvelope } from '@svc/contracts/common';
import { AmqpMessageBus, appendToOutbox, messagingMigrations, OutboxRelay } from '@svc/messaging';
import { createDatabase, runMigrations, type Database } from '@svc/storage';
import { freshPostgresDatabase, infrastructure, sleep, uniqueSuffix, waitFor } from '@svc/test-kit';
import { AmqpAdmin } from '../amqp-admin';
import { anEvent, testLogger } from '../event-builder';
import { HangingTcpProxy } from '../hanging-tcp-proxy';

// Two replicas of one service share an outbox table. One replica's broker connection goes through
// a proxy that stops forwarding without closing anything (a network partition): its relay must not
// hold the rows the other replica's relay would publish.

const suffix = uniqueSuffix();
const exchange = `test.partition.${suffix}`;
const queue = `test.partition-received.${suffix}`;
const logger = testLogger();
let dropDatabase: (() => Promise<void>) | undefined;
let healthyDb: Database;
let cutOffDb: Database;
let healthyBus: AmqpMessageBus;
let cutOffBus: AmqpMessageBus;
let proxy: HangingTcpProxy;
let admin: AmqpAdmin;

beforeAll(async () => {
  const infra = await infrastructure();
  const database = await freshPostgresDatabase('outbox_partition');
  dropDatabase = database.drop;
  // Each replica has its own pool and its own broker connection.
  healthyDb = await createDatabase({ url: database.url });
  cutOffDb = await createDatabase({ url: database.url });
  await runMigrations(healthyDb, [messagingMigrations]);
  const broker = new URL(infra.amqpUrl);
  proxy = await HangingTcpProxy.start({ host: broker.hostname, port: Number(broker.port || 5672) });
  const throughProxy = new URL(infra.amqpUrl);
  throughProxy.hostname = '127.0.0.1';
  throughProxy.port = String(proxy.port);
  healthyBus = await AmqpMessageBus.connect({ url: infra.amqpUrl, exchange, logger });
  cutOffBus = await AmqpMessageBus.connect({ url: throughProxy.toString(), exchange, logger });
  admin = await AmqpAdmin.open(infra.amqpUrl);
}, 60_000);

afterAll(async () => {
  proxy?.heal();
  await cutOffBus?.close();
  await healthyBus?.close();
  await proxy?.close();
  await admin?.deleteTopology([queue], [exchange, `${exchange}.dlx`]);
  await admin?.close();
  await healthyDb?.close();
  await cutOffDb?.close();
  await dropDatabase?.();
});

async function unpublished(): Promise<number> {
  const { rows } = await healthyDb.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL',
  );
  return rows[0]?.n ?? -1;
}

async function metric(registry: Registry, name: string): Promise<number> {
  const values = (await registry.getSingleMetric(name)?.get())?.values ?? [];
  return values.reduce((sum, value) => sum + value.value, 0);
}

describe('outbox relays of two replicas, one cut off from the broker', () => {
  it('when one replica cannot reach the broker, then the other publishes its events within seconds while the cut-off relay keeps probing, and publishes again once the network heals', async () => {
    // When each event first reached a consumer (a late copy from the cut-off replica may follow).
    const arrived = new Map<string, number>();
    await healthyBus.subscribe({
      queue,
      patterns: ['reg.box.partitioned'],
      prefetch: 50,
      handler: async (e) => void (arrived.has(e.id) || arrived.set(e.id, performance.now())),
    });
    const cutOffRegistry = new Registry();
    const cutOff = new OutboxRelay({
      db: cutOffDb,
      bus: cutOffBus,
      logger,
      registry: cutOffRegistry,
      name: 'cut-off',
    });
    const healthy = new OutboxRelay({
      db: healthyDb,
      bus: healthyBus,
      logger,
      registry: new Registry(),
      name: 'healthy',
    });
    /** A request served by the cut-off replica: the event commits there, and it kicks its own relay. */
    const commitOnCutOff = async (): Promise<{ event: EventEnvelope; at: number }> => {
      const event = anEvent('reg.box.partitioned');
      await cutOffDb.transaction((tx) => appendToOutbox(tx, event));
      const at = performance.now();
      cutOff.kick();
      return { event, at };
    };
    const delay = async ({ event, at }: { event: EventEnvelope; at: number }): Promise<number> => {
      const when = await waitFor(() => arrived.get(event.id), {
        timeoutMs: 20_000,
        what: `event ${event.id}`,
      });
      return Math.round(when - at);
    };

    cutOff.start();
    try {
      // The cut-off replica worked until now: the broker answered it a moment ago.
      const before = await commitOnCutOff();
      await delay(before);

      proxy.hang();
      // Its relay takes the next event while it still trusts the broker, and waits for a confirm.
      const first = await commitOnCutOff();
      await sleep(200);
      healthy.start();
      expect(await delay(first)).toBeLessThan(5000);
      // Once a publish or a probe has failed it leaves the rows alone, and the healthy relay
      // publishes them at once.
      await waitFor(
        async () =>
          (await metric(cutOffRegistry, 'messaging_outbox_publish_failures_total')) +
            (await metric(cutOffRegistry, 'messaging_outbox_probe_failures_total')) >
          0,
        { what: 'the cut-off relay to fail once' },
      );
      const later = [];
      for (let i = 0; i < 5; i += 1) {
        later.push(await commitOnCutOff());
        await sleep(300);
      }
      for (const committed of later) expect(await delay(committed)).toBeLessThan(2000);
      // It keeps trying, and its breaker opens although each failure took a second or more.
      await waitFor(async () => (await metric(cutOffRegistry, 'messaging_outbox_breaker_open')) === 1, {
        timeoutMs: 15_000,
        what: "the cut-off relay's breaker to open",
      });
      expect(await metric(cutOffRegistry, 'messaging_outbox_probe_failures_total')).toBeGreaterThanOrEqual(2);

      // The network heals: alone again, the replica publishes its own events.
      await healthy.stop();
      proxy.heal();
      const healed = await commitOnCutOff();
      expect(await delay(healed)).toBeLessThan(15_000);
      await waitFor(async () => (await unpublished()) === 0, { what: 'every row marked' });
    } finally {
      proxy.heal();
      await healthy.stop();
      await cutOff.stop();
    }
  }, 90_000);
});
