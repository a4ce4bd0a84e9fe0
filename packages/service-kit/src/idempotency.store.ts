import type { Database, MigrationSource, Queryable } from '@svc/storage';

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

interface KeyRow {
  fingerprint: string;
  attempt: string;
  created_at: Date | string;
  response_status: number | null;
  response_headers: Record<string, string> | null;
  response_body: string | null;
}

/** Reads and writes `idempotency_keys`. */
export class IdempotencyKeyStore {
  constructor(private readonly db: Database) {}

  /** The record of a key, if one committed. */
  async find(platformId: string, key: string): Promise<IdempotencyKeyRecord | null> {
    const { rows } = await this.db.query<KeyRow>(
      `SELECT fingerprint, attempt, created_at, response_status, response_headers, response_body
       FROM idempotency_keys WHERE platform_id = $1 AND idempotency_key = $2`,
      [platformId, key],
      { name: 'idempotency_find' },
    );
    const row = rows[0];
    if (row === undefined) return null;
    return {
      fingerprint: row.fingerprint,
      attempt: row.attempt,
      createdAt: new Date(row.created_at),
      answer:
        row.response_status === null
          ? null
          : {
              status: row.response_status,
              headers: row.response_headers ?? {},
              body: row.response_body ?? '',
            },
    };
  }

  /**
   * Inside the caller's transaction: takes the key for this attempt (or confirms it holds it).
   * False when another attempt holds it; PostgreSQL makes a concurrent attempt wait for the holder's
   * transaction, so the loser learns it only once the winner has committed or rolled back.
   */
  async enlist(tx: Queryable, entry: KeyAttempt): Promise<boolean> {
    const { rowCount } = await tx.query(
      `INSERT INTO idempotency_keys (platform_id, idempotency_key, fingerprint, attempt, created_at)
       VALUES ($1, $2, $3, $4, $5)
       ON CONFLICT (platform_id, idempotency_key) DO UPDATE SET attempt = excluded.attempt
       WHERE idempotency_keys.attempt = excluded.attempt
       RETURNING attempt`,
      [entry.platformId, entry.key, entry.fingerprint, entry.attempt, entry.createdAt],
      { name: 'idempotency_enlist' },
    );
    return rowCount === 1;
  }

  /** Keeps the answer of an attempt whose key row committed; does nothing when none did. */
  async recordAnswer(entry: KeyAttempt, answer: StoredAnswer): Promise<boolean> {
    const { rowCount } = await this.db.query(
      `UPDATE idempotency_keys SET response_status = $4, response_headers = $5::jsonb, response_body = $6
       WHERE platform_id = $1 AND idempotency_key = $2 AND attempt = $3`,
      [
        entry.platformId,
        entry.key,
        entry.attempt,
        answer.status,
        JSON.stringify(answer.headers),
        answer.body,
      ],
      { name: 'idempotency_record_answer' },
    );
    return rowCount === 1;
  }

  /** Drops a key whose 24 hours are over, so that it may be used again. */
  async forget(platformId: string, key: string, attempt: string): Promise<void> {
    await this.db.query(
      `DELETE FROM idempotency_keys WHERE platform_id = $1 AND idempotency_key = $2 AND attempt = $3`,
      [platformId, key, attempt],
    );
  }

  /** Drops every key created before `before`. */
  async purge(before: Date): Promise<number> {
    const { rowCount } = await this.db.query('DELETE FROM idempotency_keys WHERE created_at < $1', [before]);
    return rowCount;
  }
}
