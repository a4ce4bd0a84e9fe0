import { executeNamed, kyselyOn, sql, type Queryable } from '@svc/storage';
import type { IdempotencyBinding, IdempotencyStore } from '../domain/ports';
import type { DB } from './db.generated';

const db = (q: Queryable) => kyselyOn<DB>(q);

/** Which request each Idempotency-Key of a platform was first used with, in the gateway's database. */
export class IdempotencyRepository implements IdempotencyStore {
  async bind(
    q: Queryable,
    platformId: string,
    key: string,
    fingerprint: string,
    now: Date,
    ttlMs: number,
  ): Promise<IdempotencyBinding> {
    // One statement in the usual case: a new key (or one whose 24 hours are over) is bound to this request.
    const taken = await executeNamed(
      q,
      'gateway_idempotency_bind',
      db(q)
        .insertInto('idempotencyBindings')
        .values({ platformId, idempotencyKey: key, fingerprint, createdAt: now })
        .onConflict((conflict) =>
          conflict
            .columns(['platformId', 'idempotencyKey'])
            .doUpdateSet((eb) => ({
              fingerprint: eb.ref('excluded.fingerprint'),
              createdAt: eb.ref('excluded.createdAt'),
            }))
            .where('idempotencyBindings.createdAt', '<=', new Date(now.getTime() - ttlMs)),
        )
        .returning(sql<number>`1`.as('taken')),
    );
    if (taken.rowCount === 1) return 'new';
    const { rows } = await executeNamed(
      q,
      'gateway_idempotency_binding',
      db(q)
        .selectFrom('idempotencyBindings')
        .select('fingerprint')
        .where('platformId', '=', platformId)
        .where('idempotencyKey', '=', key),
    );
    // Released in between: nothing holds it any more, so this request may take it next time.
    const bound = rows[0];
    return bound === undefined || bound.fingerprint === fingerprint ? 'same' : 'different';
  }

  async release(q: Queryable, platformId: string, key: string, fingerprint: string): Promise<void> {
    await db(q)
      .deleteFrom('idempotencyBindings')
      .where('platformId', '=', platformId)
      .where('idempotencyKey', '=', key)
      .where('fingerprint', '=', fingerprint)
      .execute();
  }

  async purge(q: Queryable, before: Date): Promise<number> {
    const { numDeletedRows } = await db(q)
      .deleteFrom('idempotencyBindings')
      .where('createdAt', '<', before)
      .executeTakeFirstOrThrow();
    return Number(numDeletedRows);
  }
}
