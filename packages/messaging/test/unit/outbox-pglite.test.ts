import { Registry } from 'prom-client';
import { ManualClock } from '@svc/clock';
import type { EventEnvelope } from '@svc/contracts/common';
import {
  appendToOutbox,
  BatchPublishError,
  idempotentHandler,
  InProcessMessageBus,
  messagingMigrations,
  OutboxRelay,
  wasProcessed,
  type MessageBus,
} from '@svc/messaging';
import { createDatabase, runMigrations, type Database } from '@svc/storage';
import { waitFor } from '@svc/test-kit';
import { anEvent, testLogger } from '../event-builder';

/** The dead-letter side of a fake bus that consumes nothing. */
const noDeadLetters: Pick<
  MessageBus,
  'consumerStats' | 'deadLetterCount' | 'listDeadLetters' | 'replayDeadLetters'
> = {
  consumerStats: () => ({ transientRetries: 0, failedRetries: 0, deadLettered: 0 }),
  deadLetterCount: async () => 0,
  listDeadLetters: async () => [],
  replayDeadLetters: async () => 0,
};

// The embedded mode: PGlite and the in-process bus, one service consuming its own events from
// the same single-connection database (the case that would deadlock if the relay held a
// transaction while the bus waits for the consumer).

const serviceSchema = {
  namespace: 'test_service',
  migrations: [
    {
      version: 1,
      name: 'boxes',
      sql: `CREATE TABLE boxes (id text PRIMARY KEY);
            CREATE TABLE box_stats (box_id text PRIMARY KEY, events integer NOT NULL);`,
    },
  ],
};

let db: Database;
let bus: InProcessMessageBus;
let registry: Registry;
const applied: string[] = [];
const deliveries: string[] = [];
const logger = testLogger();

async function createBox(
  boxId: string,
  event: EventEnvelope = anEvent('reg.box.created', { boxId }),
): Promise<EventEnvelope> {
  await db.transaction(async (tx) => {
    await tx.query('INSERT INTO boxes (id) VALUES ($1)', [boxId]);
    await appendToOutbox(tx, event);
  });
  return event;
}

async function outboxRows(): Promise<
  Array<{ event_id: string; published: boolean; attempts: number; last_error: string | null }>
> {
  const { rows } = await db.query<{
    event_id: string;
    published: boolean;
    attempts: number;
    last_error: string | null;
  }>('SELECT event_id, published_at IS NOT NULL AS published, attempts, last_error FROM outbox ORDER BY id');
  return rows;
}

function relay(overrides: Partial<ConstructorParameters<typeof OutboxRelay>[0]> = {}): OutboxRelay {
  return new OutboxRelay({
    db,
    bus,
    logger,
    registry,
    clock: new ManualClock('2026-03-01T00:00:00Z'),
    ...overrides,
  });
}

beforeAll(async () => {
  db = await createDatabase({ url: 'pglite://memory' });
  await runMigrations(db, [messagingMigrations, serviceSchema]);
  bus = new InProcessMessageBus({ logger, retryBackoff: { initialMs: 1, maxMs: 5 } });
  await bus.subscribe({
    queue: 'test.box-stats',
    patterns: ['reg.box.*'],
    handler: idempotentHandler({
      db,
      consumer: 'test.box-stats',
      handle: async (tx, envelope) => {
        const boxId = String(envelope.data.boxId);
        applied.push(envelope.id);
        await tx.query(
          `INSERT INTO box_stats (box_id, events) VALUES ($1, 1)
           ON CONFLICT (box_id) DO UPDATE SET events = box_stats.events + 1`,
          [boxId],
        );
      },
    }),
  });
  await bus.subscribe({
    queue: 'test.audit',
    patterns: ['#'],
    handler: async (e) => void deliveries.push(e.id),
  });
}, 60_000);

beforeEach(async () => {
  registry = new Registry();
  applied.length = 0;
  deliveries.length = 0;
  await db.exec('TRUNCATE outbox, boxes, box_stats, processed_messages');
});

afterAll(async () => {
  await bus.close();
  await db.close();
});

describe('outbox and relay on PGlite with the in-process bus', () => {
  it('when a state change commits with its event, then the relay publishes it, the consumer applies it, and the row is marked', async () => {
    const event = await createBox('box_1');

    const published = await relay().publishPending();

    expect(published).toBe(1);
    expect(applied).toEqual([event.id]);
    expect(await outboxRows()).toEqual([
      { event_id: event.id, published: true, attempts: 0, last_error: null },
    ]);
    const { rows } = await db.query('SELECT published_at FROM outbox');
    expect(rows[0]).toEqual({ published_at: new Date('2026-03-01T00:00:00Z') });
  });

  it('when the transaction rolls back, then neither the state change nor its event exist and nothing is published', async () => {
    await expect(
      db.transaction(async (tx) => {
        await tx.query('INSERT INTO boxes (id) VALUES ($1)', ['box_2']);
        await appendToOutbox(tx, anEvent('reg.box.created', { boxId: 'box_2' }));
        throw new Error('validation failed after the insert');
      }),
    ).rejects.toThrow('validation failed');

    expect(await relay().publishPending()).toBe(0);
    expect(await outboxRows()).toEqual([]);
    expect(deliveries).toEqual([]);
  });

  it('when a relay crashes between publish and mark, then the next relay publishes again and the consumer applies the event once', async () => {
    const event = await createBox('box_3');
    const crashing = relay({
      hooks: {
        afterPublish: () => {
          throw new Error('simulated crash');
        },
      },
    });

    await expect(crashing.publishPending()).rejects.toThrow('simulated crash');
    expect(await outboxRows()).toEqual([
      { event_id: event.id, published: false, attempts: 0, last_error: null },
    ]);
    expect(await relay().publishPending()).toBe(1);

    expect(deliveries).toEqual([event.id, event.id]);
    expect(applied).toEqual([event.id]);
    const { rows } = await db.query('SELECT events FROM box_stats WHERE box_id = $1', ['box_3']);
    expect(rows).toEqual([{ events: 1 }]);
    expect(await wasProcessed(db, 'test.box-stats', event.id)).toBe(true);
  });

  it('when publishing fails, then the row records the attempt and error, later rows wait, and the next pass keeps the order', async () => {
    const first = await createBox('box_4');
    const second = await createBox('box_5');
    let down = true;
    const order: string[] = [];
    const flaky: MessageBus = {
      publish: async (envelope) => {
        if (down) throw new Error('broker unreachable');
        order.push(envelope.id);
      },
      subscribe: async () => undefined,
      isReady: () => !down,
      close: async () => undefined,
      ...noDeadLetters,
    };
    const failing = relay({ bus: flaky });

    expect(await failing.publishPending()).toBe(0);
    expect(await outboxRows()).toEqual([
      { event_id: first.id, published: false, attempts: 1, last_error: 'Error: broker unreachable' },
      { event_id: second.id, published: false, attempts: 0, last_error: null },
    ]);
    down = false;
    expect(await failing.publishPending()).toBe(2);

    expect(order).toEqual([first.id, second.id]);
    expect(await registry.getSingleMetricAsString('messaging_outbox_publish_failures_total')).toContain(
      'messaging_outbox_publish_failures_total{relay="outbox"} 1',
    );
  });

  it('when a batch publish stops after some confirms, then those rows are marked, the next records the error, and the rest wait', async () => {
    const events = [];
    for (let i = 0; i < 4; i += 1) events.push(await createBox(`box_b${i}`));
    const batches: string[][] = [];
    let down = true;
    const batching: MessageBus = {
      publish: async () => {
        throw new Error('the relay must publish in batches on this bus');
      },
      publishBatch: async (envelopes) => {
        batches.push(envelopes.map((envelope) => envelope.id));
        if (down) throw new BatchPublishError(2, new Error('channel closed'));
      },
      subscribe: async () => undefined,
      isReady: () => true,
      close: async () => undefined,
      ...noDeadLetters,
    };
    const failing = relay({ bus: batching });

    expect(await failing.publishPending()).toBe(2);
    expect(await outboxRows()).toEqual([
      { event_id: events[0]?.id, published: true, attempts: 0, last_error: null },
      { event_id: events[1]?.id, published: true, attempts: 0, last_error: null },
      { event_id: events[2]?.id, published: false, attempts: 1, last_error: 'Error: channel closed' },
      { event_id: events[3]?.id, published: false, attempts: 0, last_error: null },
    ]);
    down = false;
    expect(await failing.publishPending()).toBe(2);

    expect(batches).toEqual([events.map((e) => e.id), [events[2]?.id, events[3]?.id]]);
    expect((await outboxRows()).every((row) => row.published)).toBe(true);
  });

  it('when the bus keeps failing, then the breaker opens and stops calling it', async () => {
    await createBox('box_6');
    let calls = 0;
    const dead: MessageBus = {
      publish: async () => {
        calls += 1;
        throw new Error('broker unreachable');
      },
      subscribe: async () => undefined,
      isReady: () => false,
      close: async () => undefined,
      ...noDeadLetters,
    };
    const failing = relay({ bus: dead, breaker: { volumeThreshold: 2, resetTimeoutMs: 60_000 } });

    for (let i = 0; i < 6; i += 1) await failing.publishPending();

    expect(calls).toBe(2);
    const [row] = await outboxRows();
    expect(row?.attempts).toBe(2);
    expect(await registry.getSingleMetricAsString('messaging_outbox_breaker_open')).toContain(
      'messaging_outbox_breaker_open{relay="outbox"} 1',
    );
  });

  it('when a bus that worked for a while starts failing, then three failures in a row open the breaker, whatever the failure rate', async () => {
    let calls = 0;
    let down = false;
    const flaky: MessageBus = {
      publish: async () => {
        calls += 1;
        if (down) throw new Error('no publisher confirm');
      },
      subscribe: async () => undefined,
      isReady: () => true,
      close: async () => undefined,
      ...noDeadLetters,
    };
    const failing = relay({ bus: flaky, breaker: { resetTimeoutMs: 60_000 } });
    for (let i = 0; i < 10; i += 1) {
      await createBox(`box_ok${i}`);
      expect(await failing.publishPending()).toBe(1);
    }
    await createBox('box_failing');
    down = true;

    // 3 failures of 13 publishes: under opossum's 50 %, which alone would never open it.
    for (let i = 0; i < 6; i += 1) await failing.publishPending();

    expect(calls).toBe(13);
    expect((await outboxRows()).at(-1)).toMatchObject({ published: false, attempts: 3 });
    expect(await registry.getSingleMetricAsString('messaging_outbox_breaker_open')).toContain(
      'messaging_outbox_breaker_open{relay="outbox"} 1',
    );
  });

  it('when the broker does not answer its probe, then the relay claims no row and its breaker opens after three probes', async () => {
    await createBox('box_unanswered');
    const probes: number[] = [];
    let publishes = 0;
    const unanswered: MessageBus = {
      probe: async (timeoutMs) => {
        probes.push(timeoutMs);
        await new Promise((resolve) => setTimeout(resolve, timeoutMs));
        throw new Error(`RabbitMQ did not answer within ${timeoutMs} ms`);
      },
      publish: async () => void (publishes += 1),
      subscribe: async () => undefined,
      isReady: () => true,
      close: async () => undefined,
      ...noDeadLetters,
    };
    const cutOff = relay({ bus: unanswered, breaker: { probeTimeoutMs: 20, resetTimeoutMs: 60_000 } });

    for (let i = 0; i < 6; i += 1) expect(await cutOff.publishPending()).toBe(0);

    expect(probes).toEqual([20, 20, 20]);
    expect(publishes).toBe(0);
    expect(await outboxRows()).toEqual([
      { event_id: expect.any(String), published: false, attempts: 0, last_error: null },
    ]);
    expect(await registry.getSingleMetricAsString('messaging_outbox_probe_failures_total')).toContain(
      'messaging_outbox_probe_failures_total{relay="outbox"} 3',
    );
    expect(await registry.getSingleMetricAsString('messaging_outbox_breaker_open')).toContain(
      'messaging_outbox_breaker_open{relay="outbox"} 1',
    );
  });

  it('when the relay runs and is kicked after a commit, then the event goes out well before the next poll', async () => {
    const running = relay({ pollIntervalMs: 60_000 });
    running.start();
    try {
      await waitFor(
        async () => (await registry.getSingleMetricAsString('messaging_outbox_backlog')).includes(' 0'),
        {
          what: 'the first pass',
        },
      );
      const event = await createBox('box_7');
      const kickedAt = performance.now();
      running.kick();
      await waitFor(() => applied.includes(event.id), { timeoutMs: 2000, what: 'the event' });
      expect(performance.now() - kickedAt).toBeLessThan(1000);
    } finally {
      await running.stop();
    }
  });

  it('when the relay stops during a batch, then stop waits for the batch to be published and marked', async () => {
    const events = [];
    for (let i = 0; i < 5; i += 1) events.push(await createBox(`box_s${i}`));
    const slow = relay({ hooks: { afterPublish: () => new Promise((resolve) => setTimeout(resolve, 20)) } });
    slow.start();
    await waitFor(() => deliveries.length > 0, { what: 'the batch to start' });

    await slow.stop();

    expect((await outboxRows()).every((row) => row.published)).toBe(true);
    expect(applied).toHaveLength(5);
  });

  it('when several relays share one metrics registry, then they report under their own label without clashing', async () => {
    await createBox('box_8');
    const a = relay({ name: 'registry' });
    const b = relay({ name: 'licensing' });

    await a.publishPending();
    await b.publishPending();

    const text = await registry.metrics();
    expect(text).toContain('messaging_outbox_published_total{relay="registry"} 1');
    expect(text).toContain('messaging_outbox_backlog{relay="licensing"} 0');
  });

  it('when an event definition rejects the envelope, then the idempotent handler fails and records nothing', async () => {
    const handler = idempotentHandler({
      db,
      consumer: 'test.strict',
      event: {
        parse: (envelope: unknown) => {
          const e = envelope as EventEnvelope;
          if (typeof e.data.boxId !== 'string') throw new Error('boxId missing');
          return e as EventEnvelope<{ boxId: string }>;
        },
      },
      handle: async () => undefined,
    });
    const event = anEvent('reg.box.created', {});

    await expect(handler(event, { attempt: 1, redelivered: false })).rejects.toThrow('boxId missing');
    expect(await wasProcessed(db, 'test.strict', event.id)).toBe(false);
  });

  it('when the handle function throws, then the processed-message record rolls back with it so a retry applies the event', async () => {
    let fail = true;
    const handler = idempotentHandler({
      db,
      consumer: 'test.retry',
      handle: async (tx) => {
        await tx.query('INSERT INTO box_stats (box_id, events) VALUES ($1, 1)', ['box_r']);
        if (fail) throw new Error('downstream failed');
      },
    });
    const event = anEvent('reg.box.created', { boxId: 'box_r' });

    await expect(handler(event, { attempt: 1, redelivered: false })).rejects.toThrow('downstream failed');
    expect(await wasProcessed(db, 'test.retry', event.id)).toBe(false);
    fail = false;
    await handler(event, { attempt: 2, redelivered: true });
    await handler(event, { attempt: 3, redelivered: true });

    const { rows } = await db.query('SELECT events FROM box_stats WHERE box_id = $1', ['box_r']);
    expect(rows).toEqual([{ events: 1 }]);
  });
});
