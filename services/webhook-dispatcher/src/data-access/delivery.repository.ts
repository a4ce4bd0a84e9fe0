import { executeNamed, jsonb, kyselyOn, pageOf, sql, type Queryable } from '@svc/storage';
import type { Delivery, DeliveryStatus, DeliveryStore, DeliveryUpdate, NewDelivery } from '../domain/ports';
import type { DB } from './db.generated';

const db = (q: Queryable) => kyselyOn<DB>(q);

// Written out, not a parameter, as before: a prepared statement's generic plan can use the partial
// index on pending deliveries (WHERE status = 'pending') only when the condition says so itself.
const PENDING = sql.lit<DeliveryStatus>('pending');

// A delivery as the domain knows it: every column but its insertion order (seq).
const DELIVERY = [
  'id',
  'endpointId',
  'platformId',
  'eventId',
  'eventType',
  'payload',
  'status',
  'test',
  'manual',
  'attemptCount',
  'nextAttemptAt',
  'lastResponseStatus',
  'lastError',
  'eventCreatedAt',
  'createdAt',
  'traceContext',
] as const;

/** Deliveries owed to endpoints: one per (endpoint, public event), sent oldest first. */
export class DeliveryRepository implements DeliveryStore {
  async insertMany(tx: Queryable, deliveries: NewDelivery[]): Promise<number> {
    let inserted = 0;
    for (const d of deliveries) {
      const { numAffectedRows } = await executeNamed(
        tx,
        'webhooks_insert_delivery',
        db(tx)
          .insertInto('webhookDeliveries')
          .values({
            id: d.id,
            endpointId: d.endpointId,
            platformId: d.platformId,
            eventId: d.eventId,
            eventType: d.eventType,
            payload: d.payload,
            status: 'pending',
            test: d.test,
            nextAttemptAt: d.createdAt,
            eventCreatedAt: d.eventCreatedAt,
            createdAt: d.createdAt,
            traceContext: d.traceContext === null ? null : jsonb(d.traceContext),
          })
          .onConflict((conflict) => conflict.columns(['endpointId', 'eventId']).doNothing()),
      );
      inserted += numAffectedRows;
    }
    return inserted;
  }

  async find(q: Queryable, endpointId: string, id: string): Promise<Delivery | null> {
    const row = await db(q)
      .selectFrom('webhookDeliveries')
      .select(DELIVERY)
      .where('id', '=', id)
      .where('endpointId', '=', endpointId)
      .executeTakeFirst();
    return row ?? null;
  }

  async list(
    q: Queryable,
    endpointId: string,
    filter: { status?: DeliveryStatus | undefined; limit: number; offset: number },
  ): Promise<{ items: Delivery[]; total: number }> {
    let matching = db(q)
      .selectFrom('webhookDeliveries')
      .select(DELIVERY)
      .where('endpointId', '=', endpointId);
    if (filter.status !== undefined) matching = matching.where('status', '=', filter.status);
    const { rows, total } = await pageOf(matching.orderBy('seq', 'desc'), filter);
    return { items: rows, total };
  }

  async requeueManually(tx: Queryable, id: string, now: Date): Promise<void> {
    await db(tx)
      .updateTable('webhookDeliveries')
      .set({ status: 'pending', manual: true, nextAttemptAt: now })
      .where('id', '=', id)
      .execute();
  }

  async nextDue(q: Queryable, endpointId: string, now: Date): Promise<Delivery | null> {
    const { rows } = await executeNamed(
      q,
      'webhooks_next_due_delivery',
      db(q)
        .selectFrom('webhookDeliveries')
        .select(DELIVERY)
        .where('endpointId', '=', endpointId)
        .where('status', '=', PENDING)
        .where('nextAttemptAt', '<=', now)
        .orderBy('seq')
        .limit(sql.lit(1)),
    );
    return rows[0] ?? null;
  }

  /** The delivery after an attempt; a manual re-send is spent by it. */
  async recordAttempt(tx: Queryable, d: DeliveryUpdate): Promise<void> {
    await executeNamed(
      tx,
      'webhooks_update_delivery',
      db(tx)
        .updateTable('webhookDeliveries')
        .set({
          status: d.status,
          attemptCount: d.attemptCount,
          nextAttemptAt: d.nextAttemptAt,
          lastResponseStatus: d.lastResponseStatus,
          lastError: d.lastError,
          manual: false,
        })
        .where('id', '=', d.id),
    );
  }

  async countPending(q: Queryable): Promise<number> {
    const row = await db(q)
      .selectFrom('webhookDeliveries')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('status', '=', PENDING)
      .executeTakeFirst();
    return Number(row?.n ?? 0);
  }
}
