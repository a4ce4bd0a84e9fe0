import { kyselyOn, sql, type Queryable } from '@svc/storage';
import type { Attempt, AttemptStore } from '../domain/ports';
import type { DB } from './db.generated';

const db = (q: Queryable) => kyselyOn<DB>(q);

/** Every attempt at a delivery, numbered from 1. */
export class AttemptRepository implements AttemptStore {
  async insertMany(tx: Queryable, attempts: Attempt[]): Promise<void> {
    if (attempts.length === 0) return;
    await db(tx)
      .insertInto('webhookAttempts')
      .values(
        attempts.map((a) => ({
          deliveryId: a.deliveryId,
          number: a.number,
          attemptedAt: a.attemptedAt,
          outcome: a.outcome,
          responseStatus: a.responseStatus,
          responseBody: a.responseBody,
          durationMs: a.durationMs,
          error: a.error,
          nextRetryAt: a.nextRetryAt,
        })),
      )
      .execute();
  }

  async of(q: Queryable, deliveryIds: string[]): Promise<Attempt[]> {
    if (deliveryIds.length === 0) return [];
    return db(q)
      .selectFrom('webhookAttempts')
      .selectAll()
      .where((eb) => eb('deliveryId', '=', eb.fn.any(sql<string[]>`${deliveryIds}::text[]`)))
      .orderBy('deliveryId')
      .orderBy('number')
      .execute();
  }
}
