import { spawn, type ChildProcess } from 'node:child_process';
import path from 'node:path';
import { Registry } from 'prom-client';
import type { EventEnvelope } from '@svc/contracts/common';
import {
  AmqpMessageBus,
  appendToOutbox,
  idempotentHandler,
  messagingMigrations,
  OutboxRelay,
} from '@svc/messaging';
import {
  createDatabase,
  runMigrations,
  type Database,
  type MigrationSource,
  type Queryable,
} from '@svc/storage';
import { freshPostgresDatabase, infrastructure, sleep, uniqueSuffix, waitFor } from '@svc/test-kit';
import { AmqpAdmin } from '../amqp-admin';
import { anEvent, testLogger } from '../event-builder';

// The cluster mode: a producing service and a consuming service, each with its own PostgreSQL
// database, talking through RabbitMQ.

const producerSchema: MigrationSource = {
  namespace: 'producer',
  migrations: [{ version: 1, name: 'boxes', sql: 'CREATE TABLE boxes (id text PRIMARY KEY)' }],
};
const consumerSchema: MigrationSource = {
  namespace: 'consumer',
  migrations: [
    {
      version: 1,
      name: 'box_stats',
      sql: 'CREATE TABLE box_stats (box_id text PRIMARY KEY, events integer NOT NULL)',
    },
  ],
};

const ROOT = path.resolve(__dirname, '..', '..', '..', '..');
const suffix = uniqueSuffix();
const exchange = `test.outbox.${suffix}`;
const queues: string[] = [];
const logger = testLogger();
const dropDatabases: Array<() => Promise<void>> = [];
const closeLater: Array<{ close(): Promise<void> }> = [];
let producerUrl: string;
let consumerUrl: string;
let amqpUrl: string;
let producerDb: Database;
let consumerDb: Database;
let bus: AmqpMessageBus;
let admin: AmqpAdmin;

function queueName(label: string): string {
  const name = `test.${label}.${suffix}`;
  queues.push(name);
  return name;
}

function relay(overrides: Partial<ConstructorParameters<typeof OutboxRelay>[0]> = {}): OutboxRelay {
  return new OutboxRelay({ db: producerDb, bus, logger, registry: new Registry(), ...overrides });
}

async function createBox(boxId: string): Promise<EventEnvelope> {
  const event = anEvent('reg.box.created', { boxId });
  await producerDb.transaction(async (tx) => {
    await tx.query('INSERT INTO boxes (id) VALUES ($1)', [boxId]);
    await appendToOutbox(tx, event);
  });
  return event;
}

async function unpublished(): Promise<number> {
  const { rows } = await producerDb.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM outbox WHERE published_at IS NULL',
  );
  return rows[0]?.n ?? -1;
}

/** The consumer's projection: one more event seen for the box. */
async function countBox(tx: Queryable, envelope: EventEnvelope): Promise<void> {
  await tx.query(
    `INSERT INTO box_stats (box_id, events) VALUES ($1, 1)
     ON CONFLICT (box_id) DO UPDATE SET events = box_stats.events + 1`,
    [envelope.data.boxId],
  );
}

async function processed(consumer: string): Promise<number> {
  const { rows } = await consumerDb.query<{ n: number }>(
    'SELECT count(*)::int AS n FROM processed_messages WHERE consumer = $1',
    [consumer],
  );
  return rows[0]?.n ?? -1;
}

async function boxCounts(like: string): Promise<{ boxes: number; events: number }> {
  const { rows } = await consumerDb.query<{ boxes: number; events: number }>(
    'SELECT count(*)::int AS boxes, coalesce(sum(events), 0)::int AS events FROM box_stats WHERE box_id LIKE $1',
    [like],
  );
  return rows[0] ?? { boxes: -1, events: -1 };
}

/**
 * Another process consuming `queue` with the bus and the idempotent handler, a few milliseconds
 * per event, 20 prefetched: the test kills it. It runs the compiled packages (make build).
 */
function spawnConsumer(queue: string): ChildProcess {
  const dist = (name: string) => JSON.stringify(path.join(ROOT, 'packages', name, 'dist', 'index.js'));
  const script = `
    const { AmqpMessageBus, idempotentHandler } = require(${dist('messaging')});
    const { createDatabase } = require(${dist('storage')});
    const { createLogger } = require(${dist('logger')});
    (async () => {
      const db = await createDatabase({ url: process.env.CONSUMER_DB_URL });
      const bus = await AmqpMessageBus.connect({
        url: process.env.AMQP_URL,
        exchange: process.env.EXCHANGE,
        logger: createLogger('killed-consumer', { level: 'silent' }),
      });
      await bus.subscribe({
        queue: process.env.QUEUE,
        patterns: ['reg.box.consumed'],
        prefetch: 20,
        handler: idempotentHandler({
          db,
          consumer: process.env.QUEUE,
          handle: async (tx, envelope) => {
            await tx.query(
              'INSERT INTO box_stats (box_id, events) VALUES ($1, 1) ON CONFLICT (box_id) DO UPDATE SET events = box_stats.events + 1',
              [envelope.data.boxId],
            );
            await new Promise((resolve) => setTimeout(resolve, 5));
          },
        }),
      });
    })();`;
  return spawn(process.execPath, ['-e', script], {
    env: {
      PATH: process.env.PATH,
      CONSUMER_DB_URL: consumerUrl,
      AMQP_URL: amqpUrl,
      EXCHANGE: exchange,
      QUEUE: queue,
    },
    stdio: ['ignore', 'inherit', 'inherit'],
  });
}

beforeAll(async () => {
  const infra = await infrastructure();
  const producer = await freshPostgresDatabase('outbox_producer');
  const consumer = await freshPostgresDatabase('outbox_consumer');
  dropDatabases.push(producer.drop, consumer.drop);
  producerUrl = producer.url;
  consumerUrl = consumer.url;
  amqpUrl = infra.amqpUrl;
  producerDb = await createDatabase({ url: producer.url });
  consumerDb = await createDatabase({ url: consumer.url });
  await runMigrations(producerDb, [messagingMigrations, producerSchema]);
  await runMigrations(consumerDb, [messagingMigrations, consumerSchema]);
  bus = await AmqpMessageBus.connect({
    url: infra.amqpUrl,
    exchange,
    logger,
    retryBackoff: { initialMs: 10 },
  });
  admin = await AmqpAdmin.open(infra.amqpUrl);
}, 60_000);

afterEach(async () => {
  await producerDb.exec('TRUNCATE outbox');
});

afterAll(async () => {
  for (const closable of closeLater) await closable.close();
  await bus?.close();
  await admin?.deleteTopology(queues, [exchange, `${exchange}.dlx`]);
  await admin?.close();
  await producerDb?.close();
  await consumerDb?.close();
  for (const drop of dropDatabases) await drop();
});

describe('transactional outbox on PostgreSQL and RabbitMQ', () => {
  it('when a state change commits with its event, then the relay counts it as waiting and publishes it; when one rolls back, then nothing is published', async () => {
    const received: string[] = [];
    await bus.subscribe({
      queue: queueName('commit'),
      patterns: ['reg.box.created'],
      handler: async (e) => void received.push(String(e.data.boxId)),
    });
    await createBox('box_committed');
    await expect(
      producerDb.transaction(async (tx) => {
        await tx.query('INSERT INTO boxes (id) VALUES ($1)', ['box_rolled_back']);
        await appendToOutbox(tx, anEvent('reg.box.created', { boxId: 'box_rolled_back' }));
        throw new Error('rolled back');
      }),
    ).rejects.toThrow('rolled back');
    const producerRelay = relay();
    const waiting = await producerRelay.backlog();

    expect(await producerRelay.publishPending()).toBe(1);
    expect(waiting).toEqual({ count: 1, oldestUnsentSeconds: expect.any(Number) });
    expect(waiting.oldestUnsentSeconds).toBeGreaterThanOrEqual(0);
    expect(await producerRelay.backlog()).toEqual({ count: 0, oldestUnsentSeconds: null });

    await waitFor(() => received.length === 1, { what: 'the committed event' });
    await sleep(200);
    expect(received).toEqual(['box_committed']);
    expect(await unpublished()).toBe(0);
    const boxes = await producerDb.query('SELECT id FROM boxes ORDER BY id');
    expect(boxes.rows).toEqual([{ id: 'box_committed' }]);
  });

  it('when a relay dies between publish and mark, then a new relay publishes again and the idempotent consumer applies the event once', async () => {
    const queue = queueName('exactly-once');
    const delivered: string[] = [];
    await bus.subscribe({
      queue,
      patterns: ['reg.box.created'],
      handler: idempotentHandler({
        db: consumerDb,
        consumer: queue,
        handle: async (tx, envelope) => {
          await tx.query(
            `INSERT INTO box_stats (box_id, events) VALUES ($1, 1)
             ON CONFLICT (box_id) DO UPDATE SET events = box_stats.events + 1`,
            [envelope.data.boxId],
          );
        },
      }),
    });
    // Counts every delivery, applied or not, on a second queue bound the same way.
    await bus.subscribe({
      queue: queueName('exactly-once-tap'),
      patterns: ['reg.box.created'],
      handler: async (e) => void delivered.push(e.id),
    });
    const event = await createBox('box_twice');
    const dying = relay({
      hooks: {
        afterPublish: () => {
          throw new Error('relay killed');
        },
      },
    });

    await expect(dying.publishPending()).rejects.toThrow('relay killed');
    expect(await unpublished()).toBe(1);
    expect(await relay().publishPending()).toBe(1);

    await waitFor(() => delivered.length === 2, { what: 'two deliveries' });
    await waitFor(
      async () =>
        (await consumerDb.query('SELECT 1 FROM processed_messages WHERE event_id = $1', [event.id])).rows
          .length === 1,
      { what: 'the event to be processed' },
    );
    await sleep(300);
    expect(delivered).toEqual([event.id, event.id]);
    const stats = await consumerDb.query('SELECT events FROM box_stats WHERE box_id = $1', ['box_twice']);
    expect(stats.rows).toEqual([{ events: 1 }]);
    expect(await unpublished()).toBe(0);
  });

  it('when a relay is killed in the middle of a batch, then nothing is lost and the idempotent consumer applies each event once', async () => {
    const queue = queueName('relay-killed');
    const delivered: string[] = [];
    await bus.subscribe({
      queue,
      patterns: ['reg.box.killed'],
      prefetch: 50,
      handler: idempotentHandler({ db: consumerDb, consumer: queue, handle: countBox }),
    });
    await bus.subscribe({
      queue: queueName('relay-killed-tap'),
      patterns: ['reg.box.killed'],
      prefetch: 50,
      handler: async (e) => void delivered.push(e.id),
    });
    const events = Array.from({ length: 60 }, (_, i) => anEvent('reg.box.killed', { boxId: `box_k${i}` }));
    await producerDb.transaction((tx) => appendToOutbox(tx, ...events));
    let confirmed = 0;
    // Batches of 25: the first is confirmed and marked, the second is confirmed whole and the
    // relay dies before marking it (after its 5th row), the third is never read.
    const dying = relay({
      batchSize: 25,
      hooks: {
        afterPublish: () => {
          confirmed += 1;
          if (confirmed === 30) throw new Error('relay killed');
        },
      },
    });

    expect(await dying.publishPending()).toBe(25);
    await expect(dying.publishPending()).rejects.toThrow('relay killed');
    expect(await unpublished()).toBe(35);
    const next = relay({ batchSize: 25 });
    while ((await next.publishPending()) > 0);

    await waitFor(() => delivered.length === 85, { what: '85 deliveries (25 of them again)' });
    await waitFor(async () => (await processed(queue)) === 60, { what: 'every event applied' });
    await sleep(300);
    expect(new Set(delivered).size).toBe(60);
    expect(await unpublished()).toBe(0);
    expect(await boxCounts('box_k%')).toEqual({ boxes: 60, events: 60 });
  });

  it('when a consumer is killed in the middle of its prefetched batch, then another applies the rest and each event once', async () => {
    const queue = queueName('consumer-killed');
    await bus.declareQueue({ queue, patterns: ['reg.box.consumed'] });
    const events = Array.from({ length: 200 }, (_, i) => anEvent('reg.box.consumed', { boxId: `box_c${i}` }));
    await producerDb.transaction((tx) => appendToOutbox(tx, ...events));
    while ((await relay().publishPending()) > 0);
    const consumer = spawnConsumer(queue);
    try {
      await waitFor(async () => (await processed(queue)) >= 40, {
        timeoutMs: 30_000,
        what: '40 events applied',
      });
      // SIGKILL: no ack of what is in flight, no clean close; some applied events are unacked.
      consumer.kill('SIGKILL');
      await new Promise((resolve) =>
        consumer.exitCode === null ? consumer.once('exit', resolve) : resolve(null),
      );
    } finally {
      consumer.kill('SIGKILL');
    }
    expect(await processed(queue)).toBeLessThan(200);

    await bus.subscribe({
      queue,
      patterns: ['reg.box.consumed'],
      prefetch: 50,
      handler: idempotentHandler({ db: consumerDb, consumer: queue, handle: countBox }),
    });

    await waitFor(async () => (await processed(queue)) === 200, { what: 'every event applied' });
    await sleep(300);
    expect(await boxCounts('box_c%')).toEqual({ boxes: 200, events: 200 });
    expect(await admin.messageCount(queue)).toBe(0);
  });

  it('when two relays work one database at the same time, then every row is published exactly once', async () => {
    const received: string[] = [];
    await bus.subscribe({
      queue: queueName('two-relays'),
      patterns: ['reg.box.bulk'],
      prefetch: 100,
      handler: async (e) => void received.push(e.id),
    });
    const events = Array.from({ length: 120 }, (_, i) => anEvent('reg.box.bulk', { i }));
    await producerDb.transaction((tx) => appendToOutbox(tx, ...events));
    // A second service replica: its own pool and its own broker connection.
    const otherDb = await createDatabase({ url: producerUrl });
    const otherBus = await AmqpMessageBus.connect({
      url: (await infrastructure()).amqpUrl,
      exchange,
      logger,
    });
    closeLater.push(otherBus, otherDb);
    // A little time per publish, so that the two relays' batches surely overlap.
    const slow = { afterPublish: () => sleep(1) };
    const passes = { a: 0, b: 0 };
    const drain = async (r: OutboxRelay, who: 'a' | 'b'): Promise<void> => {
      for (;;) {
        const n = await r.publishPending();
        if (n === 0 && (await unpublished()) === 0) return;
        if (n > 0) passes[who] += 1;
      }
    };

    await Promise.all([
      drain(relay({ batchSize: 10, hooks: slow }), 'a'),
      drain(
        new OutboxRelay({
          db: otherDb,
          bus: otherBus,
          logger,
          registry: new Registry(),
          batchSize: 10,
          hooks: slow,
        }),
        'b',
      ),
    ]);

    await waitFor(() => received.length >= 120, { what: '120 deliveries' });
    await sleep(300);
    expect(received).toHaveLength(120);
    expect(new Set(received).size).toBe(120);
    expect(passes.a).toBeGreaterThan(0);
    expect(passes.b).toBeGreaterThan(0);
  });

  it('when the outbox holds a malformed event, then the consumer never sees it and it lands in the dead-letter queue', async () => {
    const queue = queueName('poison');
    let handled = 0;
    await bus.subscribe({
      queue,
      patterns: ['reg.box.#'],
      handler: idempotentHandler({
        db: consumerDb,
        consumer: queue,
        handle: async () => void (handled += 1),
      }),
    });
    const malformed = { ...anEvent('reg.box.created'), version: 0 };
    await producerDb.transaction((tx) => appendToOutbox(tx, malformed));

    expect(await relay().publishPending()).toBe(1);

    const letters = await waitFor(
      async () => {
        const read = await bus.readDeadLetters(queue);
        return read.length > 0 ? read : undefined;
      },
      { what: 'the dead letter' },
    );
    expect(letters[0]).toMatchObject({ attempts: 1, envelope: undefined });
    expect(JSON.parse(letters[0]?.body ?? '{}')).toMatchObject({ id: malformed.id, version: 0 });
    expect(letters[0]?.reason).toMatch(/^poison/);
    expect(handled).toBe(0);
  });

  it('when the relay runs in the background over many full batches, then every event arrives once and in id order', async () => {
    const received: number[] = [];
    await bus.subscribe({
      queue: queueName('background-order'),
      patterns: ['reg.box.ordered'],
      prefetch: 100,
      handler: async (e) => void received.push(Number(e.data.i)),
    });
    const events = Array.from({ length: 500 }, (_, i) => anEvent('reg.box.ordered', { i }));
    await producerDb.transaction((tx) => appendToOutbox(tx, ...events));
    // Batches of 40: the loop keeps a second pass reading while one awaits its confirms.
    const running = relay({ batchSize: 40 });
    running.start();
    try {
      await waitFor(() => received.length >= 500, { what: '500 deliveries' });
    } finally {
      await running.stop();
    }
    await sleep(300);
    expect(received).toEqual(events.map((_, i) => i));
    expect(await unpublished()).toBe(0);
  });

  it('when the relay runs in the background and is kicked, then a committed event reaches the consumer promptly', async () => {
    const received: string[] = [];
    await bus.subscribe({
      queue: queueName('kick'),
      patterns: ['reg.box.created'],
      handler: async (e) => void received.push(e.id),
    });
    const running = relay({ pollIntervalMs: 60_000 });
    running.start();
    try {
      await sleep(50);
      const event = await createBox('box_kicked');
      const started = performance.now();
      running.kick();
      await waitFor(() => received.includes(event.id), { timeoutMs: 3000, what: 'the event' });
      expect(performance.now() - started).toBeLessThan(1000);
    } finally {
      await running.stop();
    }
  });
});
