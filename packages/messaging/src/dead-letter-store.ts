import { kyselyOn, type Database, type MigrationSource } from '@svc/storage';
import type { DB } from './db.generated';

/**
 * The table where the in-process bus keeps its dead letters, so that they outlive the process as
 * RabbitMQ's dead-letter queues do (the embedded default runs it in the gateway's PGlite file).
 */
export const inProcessBusMigrations: MigrationSource = {
  namespace: 'in-process-bus',
  migrations: [
    {
      version: 1,
      name: 'bus_dead_letters',
      sql: `
CREATE TABLE bus_dead_letters (
  id bigserial PRIMARY KEY,
  queue text NOT NULL,
  -- The message as it was published (an event envelope, or what a poison message held).
  body text NOT NULL,
  attempts integer NOT NULL,
  reason text NOT NULL,
  dead_lettered_at timestamptz NOT NULL
);
CREATE INDEX bus_dead_letters_queue_idx ON bus_dead_letters (queue, id);
`,
    },
  ],
};

/** A dead letter as kept: `id` orders them (oldest first) and names one for removal. */
export interface KeptDeadLetter {
  id: number;
  queue: string;
  body: string;
  attempts: number;
  reason: string;
  deadLetteredAt: string;
}

/** Where the in-process bus keeps its dead letters. */
export interface DeadLetterStore {
  /** Resolves once the letter is kept (durably, for a database). */
  keep(letter: Omit<KeptDeadLetter, 'id'>): Promise<void>;
  count(queue: string): Promise<number>;
  /** Up to `limit` letters of `queue`, oldest first, left in place. */
  list(queue: string, limit: number): Promise<KeptDeadLetter[]>;
  remove(ids: readonly number[]): Promise<void>;
}

/** Dead letters in memory: gone with the process (tests, and a bus without a database). */
export class MemoryDeadLetterStore implements DeadLetterStore {
  private readonly letters: KeptDeadLetter[] = [];
  private nextId = 1;

  async keep(letter: Omit<KeptDeadLetter, 'id'>): Promise<void> {
    this.letters.push({ ...letter, id: this.nextId++ });
  }

  async count(queue: string): Promise<number> {
    return this.letters.filter((letter) => letter.queue === queue).length;
  }

  async list(queue: string, limit: number): Promise<KeptDeadLetter[]> {
    return this.letters.filter((letter) => letter.queue === queue).slice(0, limit);
  }

  async remove(ids: readonly number[]): Promise<void> {
    const gone = new Set(ids);
    for (let i = this.letters.length - 1; i >= 0; i -= 1) {
      const letter = this.letters[i];
      if (letter !== undefined && gone.has(letter.id)) this.letters.splice(i, 1);
    }
  }
}

/** Dead letters in a database that ran `inProcessBusMigrations`: they survive a restart. */
export class DatabaseDeadLetterStore implements DeadLetterStore {
  constructor(private readonly db: Database) {}

  async keep(letter: Omit<KeptDeadLetter, 'id'>): Promise<void> {
    await kyselyOn<DB>(this.db)
      .insertInto('busDeadLetters')
      .values({
        queue: letter.queue,
        body: letter.body,
        attempts: letter.attempts,
        reason: letter.reason,
        deadLetteredAt: letter.deadLetteredAt,
      })
      .execute();
  }

  async count(queue: string): Promise<number> {
    const row = await kyselyOn<DB>(this.db)
      .selectFrom('busDeadLetters')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('queue', '=', queue)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }

  async list(queue: string, limit: number): Promise<KeptDeadLetter[]> {
    const rows = await kyselyOn<DB>(this.db)
      .selectFrom('busDeadLetters')
      .select(['id', 'queue', 'body', 'attempts', 'reason', 'deadLetteredAt'])
      .where('queue', '=', queue)
      .orderBy('id')
      .limit(limit)
      .execute();
    return rows.map((row) => ({ ...row, deadLetteredAt: new Date(row.deadLetteredAt).toISOString() }));
  }

  async remove(ids: readonly number[]): Promise<void> {
    if (ids.length === 0) return;
    await kyselyOn<DB>(this.db)
      .deleteFrom('busDeadLetters')
      .where('id', 'in', [...ids])
      .execute();
  }
}
