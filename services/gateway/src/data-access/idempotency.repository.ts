import type { Database } from '@svc/storage';
import type { IdempotencyBinding, IdempotencyStore } from '../domain/ports';

/** Which request each Idempotency-Key of a platform was first used with, in the gateway's database. */
export class IdempotencyRepository implements IdempotencyStore {
  constructor(private readonly db: Database) {}

  async bind(
    platformId: string,
    key: string,
    fingerprint: string,
    now: Date,
    ttlMs: number,
  ): Promise<IdempotencyBinding> {
    // One statement in the usual case: a new key (or one whose 24 hours are over) is bound to this request.
    const taken = await this.db.query(
      `INSERT INTO idempotency_bindings (platform_id, idempotency_key, fingerprint, created_at)
       VALUES ($1, $2, $3, $4)
       ON CONFLICT (platform_id, idempotency_key) DO UPDATE
       SET fingerprint = excluded.fingerprint, created_at = excluded.created_at
       WHERE idempotency_bindings.created_at <= $5
       RETURNING 1`,
      [platformId, key, fingerprint, now, new Date(now.getTime() - ttlMs)],
      { name: 'gateway_idempotency_bind' },
    );
    if (taken.rowCount === 1) return 'new';
    const { rows } = await this.db.query<{ fingerprint: string }>(
      `SELECT fingerprint FROM idempotency_bindings WHERE platform_id = $1 AND idempotency_key = $2`,
      [platformId, key],
      { name: 'gateway_idempotency_binding' },
    );
    // Released in between: nothing holds it any more, so this request may take it next time.
    const bound = rows[0];
    return bound === undefined || bound.fingerprint === fingerprint ? 'same' : 'different';
  }

  async release(platformId: string, key: string, fingerprint: string): Promise<void> {
    await this.db.query(
      `DELETE FROM idempotency_bindings WHERE platform_id = $1 AND idempotency_key = $2 AND fingerprint = $3`,
      [platformId, key, fingerprint],
    );
  }

  async purge(before: Date): Promise<number> {
    const { rowCount } = await this.db.query('DELETE FROM idempotency_bindings WHERE created_at < $1', [
      before,
    ]);
    return rowCount;
  }
}
