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
    if (deliveries.length === 0) return 0;
    // One statement for the whole fan-out (ADR 0022).
    const { numInsertedOrUpdatedRows } = await db(tx)
      .insertInto('webhookDeliveries')
      .values(
        deliveries.map((d) => ({
          id: d.id,
          endpointId: d.endpointId,
          platformId: d.platformId,
          eventId: d.eventId,
          eventType: d.eventType,
          payload: d.payload,
          status: 'pending' as const,
          test: d.test,
          nextAttemptAt: d.createdAt,
          eventCreatedAt: d.eventCreatedAt,
          createdAt: d.createdAt,
          traceContext: d.traceContext === null ? null : jsonb(d.traceContext),
        })),
      )
      .onConflict((conflict) => conflict.columns(['endpointId', 'eventId']).doNothing())
      .executeTakeFirst();
    return Number(numInsertedOrUpdatedRows ?? 0);
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

  async dueBatch(q: Queryable, endpointId: string, now: Date, limit: number): Promise<Delivery[]> {
    const { rows } = await executeNamed(
      q,
      'webhooks_due_deliveries',
      db(q)
        .selectFrom('webhookDeliveries')
        .select(DELIVERY)
        .where('endpointId', '=', endpointId)
        .where('status', '=', PENDING)
        .where('nextAttemptAt', '<=', now)
        .orderBy('seq')
        .limit(limit),
    );
    return rows;
  }

  /** Several deliveries after their attempts, in one statement; a manual re-send is spent by it. */
  async recordAttempts(tx: Queryable, updates: DeliveryUpdate[]): Promise<void> {
    if (updates.length === 0) return;
    await sql`
      UPDATE webhook_deliveries AS d
      SET status = u.status, attempt_count = u.attempt_count, next_attempt_at = u.next_attempt_at,
        last_response_status = u.last_response_status, last_error = u.last_error, manual = false
      FROM unnest(
        ${updates.map((u) => u.id)}::text[],
        ${updates.map((u) => u.status)}::text[],
        ${updates.map((u) => u.attemptCount)}::int[],
        ${updates.map((u) => u.nextAttemptAt?.toISOString() ?? null)}::timestamptz[],
        ${updates.map((u) => u.lastResponseStatus)}::int[],
        ${updates.map((u) => u.lastError)}::text[]
      ) AS u(id, status, attempt_count, next_attempt_at, last_response_status, last_error)
      WHERE d.id = u.id`.execute(db(tx));
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
