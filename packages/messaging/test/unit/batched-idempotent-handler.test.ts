import type { EventEnvelope } from '@svc/contracts';
import { batchedIdempotentHandler, messagingMigrations, wasProcessed } from '@svc/messaging';
import { createDatabase, runMigrations, type Database } from '@svc/storage';
import { anEvent } from '../event-builder';

// Group commit on PGlite: what a consumer with a prefetch hands the handler at once.

let db: Database;
const first = { attempt: 1, redelivered: false };

beforeAll(async () => {
  db = await createDatabase({ url: 'pglite://memory' });
  await runMigrations(db, [
    messagingMigrations,
    {
      namespace: 'test_batched',
      migrations: [
        { version: 1, name: 'seen', sql: 'CREATE TABLE seen (event_id text NOT NULL, n integer NOT NULL)' },
      ],
    },
  ]);
});

beforeEach(async () => {
  await db.exec('TRUNCATE seen, processed_messages');
});

afterAll(async () => {
  await db.close();
});

async function seen(): Promise<Array<{ event_id: string; n: number }>> {
  return (await db.query<{ event_id: string; n: number }>('SELECT event_id, n FROM seen ORDER BY n')).rows;
}

describe('batchedIdempotentHandler', () => {
  it('when messages arrive while a transaction runs, then they are applied together in the next one and each once', async () => {
    const batches: string[][] = [];
    const handler = batchedIdempotentHandler({
      db,
      consumer: 'test.batched',
      handle: async () => {
        throw new Error('handleBatch is given');
      },
      handleBatch: async (tx, items) => {
        batches.push(items.map((item) => item.envelope.id));
        for (const { envelope } of items)
          await tx.query('INSERT INTO seen (event_id, n) VALUES ($1, $2)', [envelope.id, envelope.data.n]);
      },
    });
    const events = Array.from({ length: 10 }, (_, n) => anEvent('test.thing.happened', { n }));
    const again = events[3] as EventEnvelope;

    await Promise.all([...events, again].map((event) => handler(event, first)));
    await handler(again, { attempt: 2, redelivered: true });

    expect((await seen()).map((row) => row.event_id)).toEqual(events.map((event) => event.id));
    expect(batches.length).toBeLessThan(events.length);
    expect(batches.flat()).toEqual(events.map((event) => event.id));
    for (const event of events) expect(await wasProcessed(db, 'test.batched', event.id)).toBe(true);
  });

  it('when one event of a batch fails, then it fails alone and the others are applied once', async () => {
    const handler = batchedIdempotentHandler({
      db,
      consumer: 'test.batched-failing',
      handle: async (tx, envelope) => {
        if (envelope.data.n === 2) throw new Error('bad event');
        await tx.query('INSERT INTO seen (event_id, n) VALUES ($1, $2)', [envelope.id, envelope.data.n]);
      },
    });
    const events = Array.from({ length: 5 }, (_, n) => anEvent('test.thing.happened', { n }));

    const results = await Promise.allSettled(events.map((event) => handler(event, first)));

    expect(results.map((result) => result.status)).toEqual([
      'fulfilled',
      'fulfilled',
      'rejected',
      'fulfilled',
      'fulfilled',
    ]);
    expect((await seen()).map((row) => row.n)).toEqual([0, 1, 3, 4]);
    expect(await wasProcessed(db, 'test.batched-failing', (events[2] as EventEnvelope).id)).toBe(false);
  });
});
