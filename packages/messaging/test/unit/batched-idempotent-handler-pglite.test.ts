import type { EventEnvelope } from '@svc/contracts/common';
import { batchedIdempotentHandler, messagingMigrations, wasProcessed } from '@svc/messaging';
import { createDatabase, runMigrations, type Database } from '@svc/storage';
import { anEvent, gate } from '../event-builder';

// The group-commit consumer on PGlite: what arrives while a batch commits goes in the next one,
// every message is acked only after the transaction that recorded it, and one bad message fails
// alone.

const CONSUMER = 'test.batched';
const delivery = { attempt: 1, redelivered: false };

let db: Database;
beforeAll(async () => {
  db = await createDatabase({ url: 'pglite://memory' });
  await runMigrations(db, [
    messagingMigrations,
    {
      namespace: 'test_batched',
      migrations: [{ version: 1, name: 'applied', sql: 'CREATE TABLE applied (event_id text NOT NULL)' }],
    },
  ]);
});
afterAll(async () => {
  await db.close();
});
beforeEach(async () => {
  await db.query('DELETE FROM applied');
  await db.query('DELETE FROM processed_messages');
});

async function applied(): Promise<string[]> {
  const { rows } = await db.query<{ event_id: string }>('SELECT event_id FROM applied');
  return rows.map((r) => r.event_id);
}

function handlerThat(
  options: { failOn?: string; hold?: Promise<void>; batches?: number[] } = {},
): ReturnType<typeof batchedIdempotentHandler> {
  return batchedIdempotentHandler({
    db,
    consumer: CONSUMER,
    maxBatch: 50,
    handle: async (tx, messages) => {
      options.batches?.push(messages.length);
      await options.hold;
      for (const { envelope } of messages) {
        if (envelope.id === options.failOn) throw new Error(`cannot apply ${envelope.id}`);
        await tx.query('INSERT INTO applied (event_id) VALUES ($1)', [envelope.id]);
      }
    },
  });
}

describe('batchedIdempotentHandler', () => {
  it('when messages arrive while a batch commits, then they are applied together in the next one, each once', async () => {
    const held = gate();
    const batches: number[] = [];
    const handle = handlerThat({ hold: held.promise, batches });
    const lone = anEvent('test.batched.done');
    const first = handle(lone, delivery);
    await new Promise((resolve) => setImmediate(resolve));
    const events: EventEnvelope[] = Array.from({ length: 30 }, () => anEvent('test.batched.done'));
    // The same event twice in one batch, as a redelivery racing its first delivery would be.
    const twice = events[0] as EventEnvelope;
    const later = [...events, twice].map((e) => handle(e, delivery));
    held.open();
    await Promise.all([first, ...later]);
    // The lone message went at once; the 31 that came while it committed went together, and
    // the event given twice was applied once.
    expect(batches).toEqual([1, 30]);
    expect((await applied()).sort()).toEqual([lone, ...events].map((e) => e.id).sort());
    // A redelivery after the commit is a no-op.
    await handle(twice, { attempt: 2, redelivered: true });
    expect(await applied()).toHaveLength(31);
    expect(await wasProcessed(db, CONSUMER, twice.id)).toBe(true);
  });

  it('when one message of a batch cannot be applied, then only it fails and the others are applied and acked', async () => {
    const held = gate();
    const bad = anEvent('test.batched.done');
    const good = Array.from({ length: 10 }, () => anEvent('test.batched.done'));
    const handle = handlerThat({ failOn: bad.id, hold: held.promise });
    const results = [...good.slice(0, 5), bad, ...good.slice(5)].map((e) =>
      handle(e, delivery).then(
        () => 'acked',
        (err: Error) => err.message,
      ),
    );
    held.open();
    const settled = await Promise.all(results);
    expect(settled.filter((r) => r === 'acked')).toHaveLength(10);
    expect(settled[5]).toBe(`cannot apply ${bad.id}`);
    expect((await applied()).sort()).toEqual(good.map((e) => e.id).sort());
    // The failed message was not recorded as processed: the bus's retry applies it when it can.
    expect(await wasProcessed(db, CONSUMER, bad.id)).toBe(false);
  });

  it('when the check refuses a message, then it fails at once without holding up the batch', async () => {
    const handle = batchedIdempotentHandler({
      db,
      consumer: CONSUMER,
      check: (envelope) => {
        if (envelope.data.bad === true) throw new Error('bad shape');
      },
      handle: async (tx, messages) => {
        for (const { envelope } of messages)
          await tx.query('INSERT INTO applied (event_id) VALUES ($1)', [envelope.id]);
      },
    });
    const ok = anEvent('test.batched.done');
    const [refused, acked] = await Promise.allSettled([
      handle(anEvent('test.batched.done', { bad: true }), delivery),
      handle(ok, delivery),
    ]);
    expect(refused.status).toBe('rejected');
    expect(acked.status).toBe('fulfilled');
    expect(await applied()).toEqual([ok.id]);
  });
});
