import { kyselyOn, preparedStatement, sql, type Kysely, type Queryable } from '@svc/storage';
import type { IdempotencyBinding, IdempotencyStore } from '../domain/ports';
import type { DB } from './db.generated';

const db = (q: Queryable) => kyselyOn<DB>(q);

// Fingerprints taken over the body's bytes start with this (the domain's BYTES_FINGERPRINT_PREFIX,
// ADR 0041). A row without it was bound by an older gateway over re-serialised JSON: it cannot be
// compared, so it does not refuse the request (the owning service's own record still does).
const BYTES_FINGERPRINT_PREFIX = 'b1:';

function sameBinding(bound: string, fingerprint: string): boolean {
  return bound === fingerprint || !bound.startsWith(BYTES_FINGERPRINT_PREFIX);
}

// Per request with an Idempotency-Key: built and compiled once, then run with each request's values.
const bindIfFree = preparedStatement(
  'gateway_idempotency_bind',
  (
    db: Kysely<DB>,
    input: { platformId: string; idempotencyKey: string; fingerprint: string; now: Date; expiredBy: Date },
  ) =>
    db
      .insertInto('idempotencyBindings')
      .values({
        platformId: input.platformId,
        idempotencyKey: input.idempotencyKey,
        fingerprint: input.fingerprint,
        createdAt: input.now,
      })
      .onConflict((conflict) =>
        conflict
          .columns(['platformId', 'idempotencyKey'])
          .doUpdateSet((eb) => ({
            fingerprint: eb.ref('excluded.fingerprint'),
            createdAt: eb.ref('excluded.createdAt'),
          }))
          .where('idempotencyBindings.createdAt', '<=', input.expiredBy),
      )
      .returning(sql<number>`1`.as('taken')),
);

const binding = preparedStatement(
  'gateway_idempotency_binding',
  (db: Kysely<DB>, input: { platformId: string; idempotencyKey: string }) =>
    db
      .selectFrom('idempotencyBindings')
      .select('fingerprint')
      .where('platformId', '=', input.platformId)
      .where('idempotencyKey', '=', input.idempotencyKey),
);

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
    const taken = await bindIfFree(q, {
      platformId,
      idempotencyKey: key,
      fingerprint,
      now,
      expiredBy: new Date(now.getTime() - ttlMs),
    });
    if (taken.rowCount === 1) return 'new';
    const { rows } = await binding(q, { platformId, idempotencyKey: key });
    // Released in between: nothing holds it any more, so this request may take it next time.
    const bound = rows[0];
    return bound === undefined || sameBinding(bound.fingerprint, fingerprint) ? 'same' : 'different';
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
