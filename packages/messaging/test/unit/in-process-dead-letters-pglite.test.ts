import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  DatabaseDeadLetterStore,
  InProcessMessageBus,
  inProcessBusMigrations,
  type DeadLetterStore,
} from '@svc/messaging';
import { createDatabase, runMigrations, type Database } from '@svc/storage';
import { waitFor } from '@svc/test-kit';
import { busContract } from '../bus-contract';
import { anEvent, capturingLogger, gate, testLogger } from '../event-builder';

// The embedded default's bus keeps its dead letters in a PGlite file (the gateway's): a restart
// must not lose one, and a replay must not lose one either if the process dies before it is handled.

const FAST = { retryBackoff: { initialMs: 1, maxMs: 5 }, transientBackoff: { initialMs: 1, maxMs: 5 } };

async function openStore(dir?: string): Promise<{ db: Database; store: DatabaseDeadLetterStore }> {
  const db = await createDatabase({ url: dir === undefined ? 'pglite://memory' : `pglite://${dir}` });
  await runMigrations(db, [inProcessBusMigrations]);
  return { db, store: new DatabaseDeadLetterStore(db) };
}

describe('InProcessMessageBus with its dead letters in PGlite, the bus contract', () => {
  let db: Database;
  let store: DatabaseDeadLetterStore;
  beforeAll(async () => {
    ({ db, store } = await openStore());
  });
  afterAll(async () => {
    await db.close();
  });

  busContract({
    publishResolves: 'handled',
    timeoutMs: 2000,
    create: async () => {
      const { logger, lines } = capturingLogger();
      const bus = new InProcessMessageBus({ logger, ...FAST, deadLetterStore: store });
      let n = 0;
      const prefix = `pg.${Math.random().toString(36).slice(2, 8)}`;
      return {
        bus,
        logged: lines,
        queueName: (label) => `${prefix}.${label}.${(n += 1)}`,
        declareQueue: (queue, patterns, maxAttempts) => bus.declareQueue({ queue, patterns, maxAttempts }),
        readDeadLetters: (queue) => bus.readDeadLetters(queue),
        dispose: () => bus.close(),
      };
    },
  });
});

describe('InProcessMessageBus dead letters across a restart', () => {
  let dir: string;
  beforeEach(() => {
    dir = mkdtempSync(path.join(os.tmpdir(), 'bus-dead-letters-'));
  });
  afterEach(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('when the process restarts, then its dead letters are still listed, and a replay hands each to the consumer once and empties the list', async () => {
    const event = anEvent('reg.box.created', { boxId: 'box_1' });
    {
      const { db, store } = await openStore(dir);
      const bus = new InProcessMessageBus({ logger: testLogger(), ...FAST, deadLetterStore: store });
      await bus.subscribe({
        queue: 'q.restart',
        patterns: ['reg.#'],
        maxAttempts: 2,
        handler: async () => {
          throw new Error('a bug, fixed in the next release');
        },
      });
      await bus.publish(event);
      expect(await bus.deadLetterCount('q.restart')).toBe(1);
      await bus.close();
      await db.close();
    }

    const { db, store } = await openStore(dir);
    const bus = new InProcessMessageBus({ logger: testLogger(), ...FAST, deadLetterStore: store });
    const handled: string[] = [];
    await bus.subscribe({
      queue: 'q.restart',
      patterns: ['reg.#'],
      handler: async (envelope) => {
        handled.push(envelope.id);
      },
    });
    expect(await bus.listDeadLetters('q.restart')).toEqual([
      expect.objectContaining({
        eventId: event.id,
        type: 'reg.box.created',
        attempts: 2,
        reason: 'Error: a bug, fixed in the next release',
      }),
    ]);
    expect(await bus.replayDeadLetters('q.restart')).toBe(1);
    await waitFor(async () => (await bus.deadLetterCount('q.restart')) === 0, {
      timeoutMs: 2000,
      what: 'the replayed letter handled and gone',
    });
    expect(handled).toEqual([event.id]);
    await bus.close();
    await db.close();
  });

  it('when the process stops while a replayed letter is still being handled, then it is still a dead letter after the restart', async () => {
    const event = anEvent('reg.box.created');
    const { db, store } = await openStore(dir);
    const failing = new InProcessMessageBus({ logger: testLogger(), ...FAST, deadLetterStore: store });
    await failing.subscribe({
      queue: 'q.replay',
      patterns: ['reg.#'],
      maxAttempts: 1,
      handler: async () => {
        throw new Error('nope');
      },
    });
    await failing.publish(event);
    await failing.close();

    const stuck = gate();
    const slow = new InProcessMessageBus({ logger: testLogger(), ...FAST, deadLetterStore: store });
    let started = false;
    await slow.subscribe({
      queue: 'q.replay',
      patterns: ['reg.#'],
      handler: async () => {
        started = true;
        await stuck.promise;
        throw new Error('still broken');
      },
    });
    expect(await slow.replayDeadLetters('q.replay')).toBe(1);
    await waitFor(() => started, { timeoutMs: 2000, what: 'the replay under way' });
    // A second replay while the first is under way does not hand the same letter out again.
    expect(await slow.replayDeadLetters('q.replay')).toBe(0);
    const closing = slow.close();
    stuck.open();
    await closing;
    expect(await store.count('q.replay')).toBe(1);
    await db.close();
  });

  it('when a replayed letter fails again, then it is one dead letter again, not two', async () => {
    const { db, store } = await openStore(dir);
    const bus = new InProcessMessageBus({ logger: testLogger(), ...FAST, deadLetterStore: store });
    let calls = 0;
    await bus.subscribe({
      queue: 'q.again',
      patterns: ['reg.#'],
      maxAttempts: 1,
      handler: async () => {
        calls += 1;
        throw new Error('nope');
      },
    });
    const event = anEvent('reg.box.created');
    await bus.publish(event);
    expect(await bus.replayDeadLetters('q.again')).toBe(1);
    await waitFor(() => calls === 2, { timeoutMs: 2000, what: 'the replay handled' });
    // The old letter leaves the store once the new one is kept.
    await new Promise((resolve) => setTimeout(resolve, 100));
    const letters = await bus.deadLetters('q.again');
    expect(letters.map((letter) => letter.envelope.id)).toEqual([event.id]);
    await bus.close();
    await db.close();
  });

  it('when the store cannot keep a dead letter, then the message is not settled, and a bus closing meanwhile fails its publish so the outbox keeps it', async () => {
    const refusing: DeadLetterStore = {
      keep: async () => {
        throw new Error('disk full');
      },
      count: async () => 0,
      list: async () => [],
      remove: async () => undefined,
    };
    const bus = new InProcessMessageBus({ logger: testLogger(), ...FAST, deadLetterStore: refusing });
    await bus.subscribe({
      queue: 'q.refused',
      patterns: ['reg.#'],
      maxAttempts: 1,
      handler: async () => {
        throw new Error('nope');
      },
    });
    let settled: 'resolved' | 'rejected' | undefined;
    const publishing = bus.publish(anEvent('reg.box.created')).then(
      () => (settled = 'resolved'),
      () => (settled = 'rejected'),
    );
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(settled).toBeUndefined();
    await bus.close();
    await publishing;
    expect(settled).toBe('rejected');
  });
});
