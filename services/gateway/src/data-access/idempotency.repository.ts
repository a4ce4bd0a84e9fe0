import type { Database } from '@svc/storage';
import type { IdempotencyStore, Reservation, StoredResponse } from '../domain/ports';

interface RecordRow {
  fingerprint: string;
  state: 'in_progress' | 'done';
  response_status: number | null;
  response_headers: Record<string, string> | null;
  response_body: string | null;
  created_at: Date;
}

/** Idempotency records in the gateway's database, keyed per platform. */
export class IdempotencyRepository implements IdempotencyStore {
  constructor(private readonly db: Database) {}

  reserve(
    platformId: string,
    key: string,
    fingerprint: string,
    now: Date,
    options: { ttlMs: number; abandonAfterMs: number },
  ): Promise<Reservation> {
    return this.db.transaction(async (tx) => {
      const inserted = await tx.query(
        `INSERT INTO idempotency_records (platform_id, idempotency_key, fingerprint, state, created_at)
         VALUES ($1, $2, $3, 'in_progress', $4) ON CONFLICT DO NOTHING`,
        [platformId, key, fingerprint, now],
      );
      if (inserted.rowCount === 1) return { kind: 'reserved' };
      const { rows } = await tx.query<RecordRow>(
        `SELECT fingerprint, state, response_status, response_headers, response_body, created_at
         FROM idempotency_records WHERE platform_id = $1 AND idempotency_key = $2 FOR UPDATE`,
        [platformId, key],
      );
      const row = rows[0];
      const age = row === undefined ? Infinity : now.getTime() - new Date(row.created_at).getTime();
      const expired = age >= options.ttlMs;
      const abandoned = row?.state === 'in_progress' && age >= options.abandonAfterMs;
      if (row === undefined || expired || abandoned) {
        await tx.query(
          `INSERT INTO idempotency_records (platform_id, idempotency_key, fingerprint, state, created_at)
           VALUES ($1, $2, $3, 'in_progress', $4)
           ON CONFLICT (platform_id, idempotency_key) DO UPDATE
           SET fingerprint = excluded.fingerprint, state = 'in_progress', response_status = NULL,
               response_headers = NULL, response_body = NULL, created_at = excluded.created_at`,
          [platformId, key, fingerprint, now],
        );
        return { kind: 'reserved' };
      }
      if (row.fingerprint !== fingerprint) return { kind: 'conflict', reason: 'different_request' };
      if (row.state === 'in_progress') return { kind: 'conflict', reason: 'in_progress' };
      return {
        kind: 'replay',
        response: {
          status: row.response_status ?? 200,
          headers: row.response_headers ?? {},
          body: row.response_body ?? '',
        },
      };
    });
  }

  async complete(platformId: string, key: string, response: StoredResponse): Promise<void> {
    await this.db.query(
      `UPDATE idempotency_records SET state = 'done', response_status = $3, response_headers = $4, response_body = $5
       WHERE platform_id = $1 AND idempotency_key = $2`,
      [platformId, key, response.status, JSON.stringify(response.headers), response.body],
    );
  }

  async release(platformId: string, key: string): Promise<void> {
    await this.db.query(`DELETE FROM idempotency_records WHERE platform_id = $1 AND idempotency_key = $2`, [
      platformId,
      key,
    ]);
  }

  async purge(before: Date): Promise<number> {
    const { rowCount } = await this.db.query('DELETE FROM idempotency_records WHERE created_at < $1', [
      before,
    ]);
    return rowCount;
  }
}
