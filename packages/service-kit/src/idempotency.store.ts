import {
  kyselyOn,
  preparedStatement,
  sql,
  type Database,
  type JsonbInput,
  type Kysely,
  type MigrationSource,
  type Queryable,
} from '@svc/storage';
import type { DB } from './db.generated';

/**
 * The table of Idempotency-Keys a service has carried out. Each service runs it in its own
 * database next to the outbox (`runMigrations(db, [messagingMigrations, idempotencyMigrations, …])`):
 * a key row commits in the same transaction as the write it guards.
 */
export const idempotencyMigrations: MigrationSource = {
  namespace: 'idempotency',
  migrations: [
    {
      version: 1,
      name: 'idempotency_keys',
      sql: `
CREATE TABLE idempotency_keys (
  platform_id text NOT NULL,
  idempotency_key text NOT NULL,
  -- Method, path, query and body of the request that used the key.
  fingerprint text NOT NULL,
  -- The one attempt that holds the key: a concurrent attempt with the same key rolls back.
  attempt text NOT NULL,
  created_at timestamptz NOT NULL,
  -- The answer, recorded once the request is answered; NULL while running (or if it was lost).
  response_status integer NULL,
  response_headers jsonb NULL,
  response_body text NULL,
  PRIMARY KEY (platform_id, idempotency_key)
);
CREATE INDEX idempotency_keys_created_idx ON idempotency_keys (created_at);
`,
    },
  ],
};

/** An answer kept for replays. */
export interface StoredAnswer {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface IdempotencyKeyRecord {
  fingerprint: string;
  attempt: string;
  createdAt: Date;
  answer: StoredAnswer | null;
}

/** Identifies one attempt at one key. */
export interface KeyAttempt {
  platformId: string;
  key: string;
  fingerprint: string;
  attempt: string;
  createdAt: Date;
}

// The statements' inputs: a mapped type, so that it is a record of values as preparedStatement wants.
type KeyInput = { [K in keyof KeyAttempt]: KeyAttempt[K] };

const findKey = preparedStatement(
  'idempotency_find',
  (db: Kysely<DB>, input: { platformId: string; key: string }) =>
    db
      .selectFrom('idempotencyKeys')
      .select(['fingerprint', 'attempt', 'createdAt', 'responseStatus', 'responseHeaders', 'responseBody'])
      .where('platformId', '=', input.platformId)
      .where('idempotencyKey', '=', input.key),
);

// Takes the key, or confirms that this attempt already holds it (a retry of the same attempt).
const enlistKey = preparedStatement('idempotency_enlist', (db: Kysely<DB>, input: KeyInput) =>
  db
    .insertInto('idempotencyKeys')
    .values({
      platformId: input.platformId,
      idempotencyKey: input.key,
      fingerprint: input.fingerprint,
      attempt: input.attempt,
      createdAt: input.createdAt,
    })
    .onConflict((conflict) =>
      conflict
        .columns(['platformId', 'idempotencyKey'])
        .doUpdateSet((eb) => ({ attempt: eb.ref('excluded.attempt') }))
        .where('idempotencyKeys.attempt', '=', (eb) => eb.ref('excluded.attempt')),
    )
    .returning('attempt'),
);

const recordKeyAnswer = preparedStatement(
  'idempotency_record_answer',
  (db: Kysely<DB>, input: KeyInput & { status: number; headers: string; body: string }) =>
    db
      .updateTable('idempotencyKeys')
      .set({
        responseStatus: input.status,
        responseHeaders: sql<JsonbInput<Record<string, string>>>`${input.headers}::jsonb`,
        responseBody: input.body,
      })
      .where('platformId', '=', input.platformId)
      .where('idempotencyKey', '=', input.key)
      .where('attempt', '=', input.attempt),
);

/** Reads and writes `idempotency_keys`. */
export class IdempotencyKeyStore {
  constructor(private readonly db: Database) {}

  /** The record of a key, if one committed. */
  async find(platformId: string, key: string): Promise<IdempotencyKeyRecord | null> {
    const { rows } = await findKey(this.db, { platformId, key });
    const row = rows[0];
    if (row === undefined) return null;
    return {
      fingerprint: row.fingerprint,
      attempt: row.attempt,
      createdAt: new Date(row.createdAt),
      answer:
        row.responseStatus === null
          ? null
          : { status: row.responseStatus, headers: row.responseHeaders ?? {}, body: row.responseBody ?? '' },
    };
  }

  /**
   * Inside the caller's transaction: takes the key for this attempt (or confirms it holds it).
   * False when another attempt holds it; PostgreSQL makes a concurrent attempt wait for the holder's
   * transaction, so the loser learns it only once the winner has committed or rolled back.
   */
  async enlist(tx: Queryable, entry: KeyAttempt): Promise<boolean> {
    const { rowCount } = await enlistKey(tx, { ...entry });
    return rowCount === 1;
  }

  /** Keeps the answer of an attempt whose key row committed; does nothing when none did. */
  recordAnswer(entry: KeyAttempt, answer: StoredAnswer): Promise<boolean> {
    return this.recordAnswerIn(this.db, entry, answer);
  }

  /** Keeps the answer in the transaction that enlisted the key: they commit together. */
  async recordAnswerIn(on: Queryable, entry: KeyAttempt, answer: StoredAnswer): Promise<boolean> {
    const { rowCount } = await recordKeyAnswer(on, {
      ...entry,
      status: answer.status,
      headers: JSON.stringify(answer.headers),
      body: answer.body,
    });
    return rowCount === 1;
  }

  /** Drops a key whose 24 hours are over, so that it may be used again. */
  async forget(platformId: string, key: string, attempt: string): Promise<void> {
    await kyselyOn<DB>(this.db)
      .deleteFrom('idempotencyKeys')
      .where('platformId', '=', platformId)
      .where('idempotencyKey', '=', key)
      .where('attempt', '=', attempt)
      .execute();
  }

  /** Drops every key created before `before`. */
  async purge(before: Date): Promise<number> {
    const result = await kyselyOn<DB>(this.db)
      .deleteFrom('idempotencyKeys')
      .where('createdAt', '<', before)
      .executeTakeFirst();
    return Number(result.numDeletedRows);
  }
}
