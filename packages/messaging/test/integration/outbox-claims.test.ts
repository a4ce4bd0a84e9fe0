import { Registry } from 'prom-client';
import { ManualClock } from '@svc/clock';
import type { EventEnvelope } from '@svc/contracts/common';
import {
  appendToOutbox,
  BatchPublishError,
  messagingMigrations,
  OutboxRelay,
  type MessageBus,
} from '@svc/messaging';
import { createDatabase, runMigrations, type Database } from '@svc/storage';
import { freshPostgresDatabase } from '@svc/test-kit';
import { anEvent, testLogger } from '../event-builder';

// The relay's claims on PostgreSQL (ADR 0037): a batch is claimed and marked sent by one statement
// in the transaction that publishes it, so what the bus did not confirm must be given back, and a
// claim starts after the previous one's last row, so a row that commits late must still be found.

const logger = testLogger();
let db: Database;
let drop: () => Promise<void>;
const published: string[][] = [];
let failAfter: number | undefined;

/** A bus that records each batch; `failAfter` makes the next batch stop after that many confirms. */
const bus: MessageBus = {
  publish: async () => {
    throw new Error('the relay must publish in batches on this bus');
  },
  publishBatch: async (envelopes) => {
    published.push(envelopes.map((envelope) => envelope.id));
    if (failAfter !== undefined) {
      const confirmed = failAfter;
      failAfter = undefined;
      throw new BatchPublishError(confirmed, new Error('channel closed'));
    }
  },
  subscribe: async () => undefined,
  isReady: () => true,
  close: async () => undefined,
  consumerStats: () => ({ transientRetries: 0, failedRetries: 0, deadLettered: 0 }),
  deadLetterCount: async () => 0,
  listDeadLetters: async () => [],
  replayDeadLetters: async () => 0,
};

function relay(batchSize: number): OutboxRelay {
  return new OutboxRelay({
    db,
    bus,
    logger,
    registry: new Registry(),
    batchSize,
    clock: new ManualClock('2026-03-01T00:00:00Z'),
  });
}

async function append(count: number): Promise<EventEnvelope[]> {
  const events = Array.from({ length: count }, (_, i) => anEvent('reg.box.created', { boxId: `box_${i}` }));
  await db.transaction((tx) => appendToOutbox(tx, ...events));
  return events;
}

async function rows(): Promise<
  Array<{ event_id: string; published_at: Date | null; attempts: number; last_error: string | null }>
> {
  const result = await db.query<{
    event_id: string;
    published_at: Date | null;
    attempts: number;
    last_error: string | null;
  }>('SELECT event_id, published_at, attempts, last_error FROM outbox ORDER BY id');
  return result.rows;
}

beforeAll(async () => {
  const database = await freshPostgresDatabase('outbox_claims');
  drop = database.drop;
  db = await createDatabase({ url: database.url });
  await runMigrations(db, [messagingMigrations]);
}, 60_000);

beforeEach(async () => {
  published.length = 0;
  failAfter = undefined;
  await db.exec('TRUNCATE outbox');
});

afterAll(async () => {
  await db.close();
  await drop();
});

describe('outbox relay claims on PostgreSQL', () => {
  it('when a batch stops after some confirms, then those rows are marked sent, the next records the error, and the rest are given back unsent', async () => {
    const events = await append(4);
    const relaying = relay(10);
    failAfter = 2;

    expect(await relaying.publishPending()).toBe(2);
    const sentAt = new Date('2026-03-01T00:00:00Z');
    expect(await rows()).toEqual([
      { event_id: events[0]?.id, published_at: sentAt, attempts: 0, last_error: null },
      { event_id: events[1]?.id, published_at: sentAt, attempts: 0, last_error: null },
      { event_id: events[2]?.id, published_at: null, attempts: 1, last_error: 'Error: channel closed' },
      { event_id: events[3]?.id, published_at: null, attempts: 0, last_error: null },
    ]);
    expect(await relaying.backlog()).toMatchObject({ count: 2 });

    expect(await relaying.publishPending()).toBe(2);
    expect(published).toEqual([events.map((e) => e.id), [events[2]?.id, events[3]?.id]]);
    expect((await rows()).every((row) => row.published_at !== null)).toBe(true);
  });

  it('when a row commits after later rows were claimed past its id, then it is still published, once', async () => {
    // A writer takes the lowest id and commits last, while the relay claims the rows after it.
    const late = anEvent('reg.box.created', { boxId: 'box_late' });
    let commitLate: () => void = () => undefined;
    let appended: () => void = () => undefined;
    const lateAppended = new Promise<void>((resolve) => (appended = resolve));
    const lateCommitted = db.transaction(async (tx) => {
      await appendToOutbox(tx, late);
      appended();
      await new Promise<void>((resolve) => (commitLate = resolve));
    });
    await lateAppended;
    const others = await append(4);
    const relaying = relay(2);

    expect(await relaying.publishPending()).toBe(2);
    expect(await relaying.publishPending()).toBe(2);
    commitLate();
    await lateCommitted;
    // The next claims go on past the rows already claimed, then look back and find it.
    let total = 0;
    for (let pass = 0; pass < 3; pass += 1) total += await relaying.publishPending();

    expect(total).toBe(1);
    expect(published.flat().sort()).toEqual([...others.map((e) => e.id), late.id].sort());
    expect((await rows()).every((row) => row.published_at !== null)).toBe(true);
  });

  it('when the relay dies after the confirms but before its transaction commits, then none of its rows count as sent', async () => {
    await append(3);
    const dying = new OutboxRelay({
      db,
      bus,
      logger,
      registry: new Registry(),
      hooks: {
        afterPublish: () => {
          throw new Error('killed');
        },
      },
    });

    await expect(dying.publishPending()).rejects.toThrow('killed');
    expect((await rows()).map((row) => row.published_at)).toEqual([null, null, null]);
    expect(await relay(10).publishPending()).toBe(3);
  });
});
