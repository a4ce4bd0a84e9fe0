/**
 * Enforcement benchmark (make bench-enforcement): the durable timeline under a burst. 100,000
 * active grace periods (BENCH_GRACE_PERIODS) whose expiry falls due in the same minute are seeded
 * straight into enforcement's database (the tables its own flows fill: avatars, violations, grace
 * periods, timeline steps); then BENCH_REPLICAS enforcement processes (default 1) start on that
 * database with RabbitMQ, and their schedulers fire every expiry.
 *
 * Prints how long the scheduler took to fire them all (steps per second), and how long until every
 * event (grace_period.expired and violation.enforced per grace period) was published on RabbitMQ
 * by the outbox relay and consumed by a consumer of the bus (`AmqpMessageBus.subscribe`: a quorum
 * queue, manual acks) (events per second). Then, in the same run, the same payloads go through
 * amqplib alone (confirmed publish, manual-ack consume; ./amqp-baseline.ts). The end-to-end figure
 * is bounded by the scheduler, so the relay is also timed alone: the services stop, the outbox
 * rows are marked unsent again, and an OutboxRelay with the services' defaults publishes them to
 * the same consumer, on a pool of its own whose statements are counted and timed, with the bench
 * database's counters read before and after (./db-work.ts): the relay's database work per event.
 * The goal of issue #33 is that the relay keeps at least 60 % of amqplib alone. Then proves exactly once: every step fired
 * once, every violation enforced once, one event of each type per grace period in the outbox and
 * on the bus. The last line is one JSON object with the figures.
 *
 * Environment: BENCH_GRACE_PERIODS (default 100000), BENCH_REPLICAS (default 1), TEST_DATABASE_URL
 * / TEST_AMQP_URL (the local infrastructure, else testcontainers). Exit code 0 when every check holds.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { randomUUID } from 'node:crypto';
import { createLogger } from '@svc/logger';
import { AmqpMessageBus, messagingMigrations, OutboxRelay } from '@svc/messaging';
import { createDatabase, loadMigrationsFromDir, runMigrations } from '@svc/storage';
import { freePort, freshPostgresDatabase, isolatedAmqpUrl } from '@svc/test-kit';
import { amqplibBaseline, BASELINE_WINDOW, CONSUMER_PREFETCH } from './amqp-baseline';
import { countingDatabase, describeWork, roundedWork, settledServerWork, workPerEvent } from './db-work';
import { count, deleteQueue, intFromEnv, round, seed, waitReady } from './fixtures';

const ROOT = path.resolve(__dirname, '..', '..', '..');

const GRACE_PERIODS = intFromEnv('BENCH_GRACE_PERIODS', 100_000);
const REPLICAS = intFromEnv('BENCH_REPLICAS', 1);
const GOAL_RATIO = 0.6;

async function main(): Promise<void> {
  // A vhost of its own: enforcement declares every consumer's queue, and the 100,000 events of the
  // consumers this bench does not run would otherwise stay in the machine's default vhost.
  const broker = await isolatedAmqpUrl('bench_enforcement');
  const infra = { amqpUrl: broker.url };
  const database = await freshPostgresDatabase('bench_enforcement');
  const db = await createDatabase({ url: database.url });
  const children: ChildProcess[] = [];
  const consumerBus = await AmqpMessageBus.connect({
    url: infra.amqpUrl,
    logger: createLogger('bench-consumer', { level: 'warn' }),
    connectionName: 'bench-enforcement-consumer',
  });
  const consumerQueue = `bench.enforcement.${randomUUID().slice(0, 8)}`;
  let failures = 0;
  let summary: Record<string, unknown> | undefined;
  const check = (ok: boolean, what: string) => {
    console.log(`  ${ok ? 'ok  ' : 'FAIL'} ${what}`);
    if (!ok) failures += 1;
  };
  try {
    await runMigrations(db, [
      messagingMigrations,
      {
        namespace: 'enforcement',
        migrations: loadMigrationsFromDir(path.join(ROOT, 'services/enforcement/src/data-access/migrations')),
      },
    ]);
    const seeding = performance.now();
    await seed(db, GRACE_PERIODS);
    console.log(
      `Seeded ${GRACE_PERIODS.toLocaleString('en')} active grace periods due within one minute in ${((performance.now() - seeding) / 1000).toFixed(1)} s`,
    );

    // The consumer: a durable quorum queue of the bus, acked after the handler. Only our events
    // count: a seeded id prefix tells them from any other run's on a shared broker.
    let observed = 0;
    const seen = new Set<string>();
    // The relay's own phase (below): the same outbox published again by a relay in this process.
    let replaying = false;
    const replayed = new Set<string>();
    await consumerBus.subscribe({
      queue: consumerQueue,
      patterns: ['enforcement.grace_period.expired', 'enforcement.violation.enforced'],
      prefetch: CONSUMER_PREFETCH,
      handler: async (envelope) => {
        const data = envelope.data as { gracePeriodId?: unknown; violationId?: unknown };
        const id = String(data.gracePeriodId ?? data.violationId ?? '');
        if (!id.startsWith('gp_bench') && !id.startsWith('viol_bench')) return;
        if (replaying) {
          replayed.add(`${envelope.type}:${id}`);
          return;
        }
        seen.add(`${envelope.type}:${id}`);
        observed += 1;
      },
    });

    const started = performance.now();
    for (let i = 0; i < REPLICAS; i += 1) {
      const port = await freePort();
      const child = spawn(process.execPath, [path.join(ROOT, 'services/enforcement/dist/main.js')], {
        env: {
          PATH: process.env.PATH,
          NODE_ENV: 'production',
          LOG_LEVEL: 'warn',
          PORT: String(port),
          HOST: '127.0.0.1',
          DATABASE_URL: database.url,
          AMQP_URL: infra.amqpUrl,
          SVC_ENVIRONMENT: 'sandbox',
          DETECTION_URL: 'http://127.0.0.1:9',
          TIMELINE_INTERVAL_MS: '100',
          EVALUATION_RETRY_INTERVAL_MS: '0',
          BOX_SCAN_INTERVAL_MS: '0',
        },
        stdio: ['ignore', 'inherit', 'inherit'],
      });
      children.push(child);
      await waitReady(`http://127.0.0.1:${port}`, child);
    }
    console.log(
      `${REPLICAS} enforcement process(es) ready in ${((performance.now() - started) / 1000).toFixed(1)} s`,
    );

    const expectedEvents = GRACE_PERIODS * 2;
    let firedAt: number | undefined;
    const deadline = started + 15 * 60_000;
    for (;;) {
      if (firedAt === undefined) {
        const fired = await count(
          db,
          `SELECT count(*) AS n FROM timeline_steps WHERE kind = 'expiry' AND status = 'fired'`,
        );
        if (fired >= GRACE_PERIODS) firedAt = performance.now();
      }
      if (firedAt !== undefined && observed >= expectedEvents) break;
      if (performance.now() > deadline) throw new Error(`timed out: ${observed} of ${expectedEvents} events`);
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
    const eventsAt = performance.now();
    await new Promise((resolve) => setTimeout(resolve, 1000));

    const schedulerSeconds = ((firedAt ?? eventsAt) - started) / 1000;
    const eventSeconds = (eventsAt - started) / 1000;
    console.log('');
    console.log(
      `Scheduler: ${GRACE_PERIODS.toLocaleString('en')} expiries fired in ${schedulerSeconds.toFixed(1)} s (${Math.round(GRACE_PERIODS / schedulerSeconds).toLocaleString('en')} steps/s, ${REPLICAS} replica(s), from process start)`,
    );
    const eventsPerSecond = expectedEvents / eventSeconds;
    console.log(
      `Events:    ${expectedEvents.toLocaleString('en')} events published and consumed in ${eventSeconds.toFixed(1)} s (${Math.round(eventsPerSecond).toLocaleString('en')} events/s end to end)`,
    );

    // The relay alone: the services stop, every outbox row is marked unsent again, and an
    // OutboxRelay with its defaults (the services' own) publishes the backlog to the consumer.
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(
      children.map(
        (child) =>
          new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(null))),
      ),
    );
    await db.query('UPDATE outbox SET published_at = NULL');
    // A vacuumed table, as a steady outbox is, so the relay's own work is what is counted.
    await db.query('VACUUM ANALYZE outbox');
    const serverBefore = await settledServerWork(db);
    const relayPool = await createDatabase({ url: database.url, applicationName: 'bench-relay' });
    const counted = countingDatabase(relayPool);
    replaying = true;
    const publisherBus = await AmqpMessageBus.connect({
      url: infra.amqpUrl,
      logger: createLogger('bench-relay', { level: 'warn' }),
      connectionName: 'bench-enforcement-relay',
    });
    const relay = new OutboxRelay({
      db: counted.db,
      bus: publisherBus,
      logger: createLogger('bench-relay', { level: 'warn' }),
      name: 'bench',
      ...(process.env.BENCH_RELAY_BATCH === undefined
        ? {}
        : { batchSize: intFromEnv('BENCH_RELAY_BATCH', 500) }),
    });
    const relayStarted = performance.now();
    relay.start();
    while (replayed.size < expectedEvents) {
      if (performance.now() - relayStarted > 10 * 60_000)
        throw new Error(`relay phase timed out: ${replayed.size} of ${expectedEvents} events`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const relaySeconds = (performance.now() - relayStarted) / 1000;
    await relay.stop();
    await publisherBus.close();
    await relayPool.close();
    const relayWork = workPerEvent(counted.work, serverBefore, await settledServerWork(db), expectedEvents);
    const relayPerSecond = expectedEvents / relaySeconds;
    console.log(
      `Relay:     the ${expectedEvents.toLocaleString('en')} outbox rows marked unsent again and published by an OutboxRelay to the consumer in ${relaySeconds.toFixed(1)} s (${Math.round(relayPerSecond).toLocaleString('en')} events/s)`,
    );
    console.log(`Relay DB:  per event ${describeWork(relayWork)}`);

    // The same payloads through amqplib alone, on the same broker, now that the services are idle.
    const { rows: outboxRows } = await db.query<{ type: string; eventId: string; payload: string }>(
      'SELECT type, event_id AS "eventId", payload::text AS payload FROM outbox ORDER BY id',
    );
    const baseline = await amqplibBaseline(
      infra.amqpUrl,
      outboxRows.map((row) => ({
        routingKey: row.type,
        body: Buffer.from(row.payload),
        messageId: row.eventId,
      })),
    );
    const ratio = relayPerSecond / baseline.perSecond;
    console.log(
      `Baseline:  ${baseline.messages.toLocaleString('en')} of the same payloads through amqplib alone in ${baseline.seconds.toFixed(1)} s (${Math.round(baseline.perSecond).toLocaleString('en')} messages/s: confirms awaited per ${BASELINE_WINDOW}, manual acks, prefetch ${CONSUMER_PREFETCH})`,
    );
    const pass = ratio >= GOAL_RATIO;
    console.log(
      `goal "relay -> consumer keeps at least ${GOAL_RATIO * 100}% of amqplib alone": ${pass ? 'PASS' : 'MISS'} (${(ratio * 100).toFixed(1)}%: relay ${Math.round(relayPerSecond)} / amqplib ${Math.round(baseline.perSecond)} events/s; end to end with the scheduler ${((eventsPerSecond / baseline.perSecond) * 100).toFixed(1)}%)`,
    );
    console.log('');
    console.log('Checks:');
    check(
      (await count(db, `SELECT count(*) AS n FROM timeline_steps WHERE status = 'fired'`)) ===
        GRACE_PERIODS * 5,
      'every step fired exactly once',
    );
    check(
      (await count(db, `SELECT count(*) AS n FROM violations WHERE status = 'enforced'`)) === GRACE_PERIODS,
      'every violation enforced',
    );
    check(
      (await count(db, `SELECT count(*) AS n FROM grace_periods WHERE status = 'expired'`)) === GRACE_PERIODS,
      'every grace period expired',
    );
    check(
      (await count(
        db,
        `SELECT count(*) AS n FROM outbox WHERE type = 'enforcement.grace_period.expired'`,
      )) === GRACE_PERIODS &&
        (await count(
          db,
          `SELECT count(*) AS n FROM outbox WHERE type = 'enforcement.violation.enforced'`,
        )) === GRACE_PERIODS,
      'one grace_period.expired and one violation.enforced per grace period in the outbox',
    );
    check(
      seen.size === expectedEvents && observed === expectedEvents,
      `${observed} events on the bus, ${seen.size} distinct (no duplicates)`,
    );
    summary = {
      bench: 'enforcement',
      gracePeriods: GRACE_PERIODS,
      replicas: REPLICAS,
      schedulerSeconds: round(schedulerSeconds, 2),
      stepsPerSecond: round(GRACE_PERIODS / schedulerSeconds, 1),
      events: expectedEvents,
      eventSeconds: round(eventSeconds, 2),
      eventsPerSecond: round(eventsPerSecond, 1),
      relaySeconds: round(relaySeconds, 2),
      relayEventsPerSecond: round(relayPerSecond, 1),
      relayDbPerEvent: roundedWork(relayWork),
      baseline: {
        messages: baseline.messages,
        seconds: round(baseline.seconds, 2),
        messagesPerSecond: round(baseline.perSecond, 1),
        confirmWindow: BASELINE_WINDOW,
        prefetch: CONSUMER_PREFETCH,
      },
      ratio: round(ratio, 4),
      goals: { ratio: { min: GOAL_RATIO, pass } },
      eventsExactlyOnce: seen.size === expectedEvents && observed === expectedEvents,
    };
  } finally {
    for (const child of children) child.kill('SIGTERM');
    await Promise.all(
      children.map(
        (child) =>
          new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(null))),
      ),
    );
    await consumerBus.close();
    await deleteQueue(infra.amqpUrl, consumerQueue);
    await broker.drop();
    await db.close();
    await database.drop();
  }
  if (summary !== undefined) console.log(JSON.stringify({ ...summary, checksFailed: failures }));
  process.exit(failures === 0 ? 0 : 1);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
