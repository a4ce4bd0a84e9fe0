import { kyselyOn, pageOf, sql, type Queryable } from '@svc/storage';
import type {
  Delivery,
  DeliveryStatus,
  DeliveryStore,
  DeliveryUpdate,
  NewDelivery,
  SucceededBatch,
} from '../domain/ports';
import type { DB } from './db.generated';

const db = (q: Queryable) => kyselyOn<DB>(q);

/**
 * Deliveries after their attempts, in one statement; a manual re-send is spent by it. `fenced`:
 * only those of the endpoints a `fenced` CTE of the same statement returns.
 */
function updateDeliveries(updates: DeliveryUpdate[], fenced = false) {
  return sql`
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
      WHERE d.id = u.id${fenced ? sql` AND d.endpoint_id IN (SELECT id FROM fenced)` : sql``}`;
}

// Written out, not a parameter, as before: a prepared statement's generic plan can use the partial
// index on pending deliveries (WHERE status = 'pending') only when the condition says so itself.
const PENDING = sql.lit<DeliveryStatus>('pending');

// A delivery as the domain knows it: every column but its insertion order (seq), and its event's
// payload, stored once per event (ADR 0036).
const DELIVERY = [
  'd.id',
  'd.endpointId',
  'd.platformId',
  'd.eventId',
  'd.eventType',
  'p.payload',
  'd.status',
  'd.test',
  'd.manual',
  'd.attemptCount',
  'd.nextAttemptAt',
  'd.lastResponseStatus',
  'd.lastError',
  'd.eventCreatedAt',
  'd.createdAt',
  'd.traceContext',
] as const;

/** Deliveries joined with their event's payload. */
const deliveries = (q: Queryable) =>
  db(q)
    .selectFrom('webhookDeliveries as d')
    .innerJoin('webhookEventPayloads as p', 'p.eventId', 'd.eventId')
    .select(DELIVERY);

// The deliveries of a fan-out, inserted in the order given (WITH ORDINALITY): `seq` is the order
// an endpoint's deliveries are sent in. Each event's payload once ($1), before its deliveries ($2):
// the foreign key is checked at the end of the statement, when the payload is there.
const INSERT_DELIVERIES = `
  WITH payloads AS (
    INSERT INTO webhook_event_payloads (event_id, payload)
    SELECT p.event_id, p.payload::text FROM json_to_recordset($1::json) AS p(event_id text, payload json)
    ON CONFLICT (event_id) DO NOTHING
  )
  INSERT INTO webhook_deliveries (id, endpoint_id, platform_id, event_id, event_type, status,
    test, next_attempt_at, event_created_at, created_at, trace_context)
  SELECT d.id, d.endpoint_id, d.platform_id, d.event_id, d.event_type, 'pending',
    d.test, d.created_at, d.event_created_at, d.created_at, d.trace_context
  FROM ROWS FROM (json_to_recordset($2::json) AS (id text, endpoint_id text, platform_id text,
    event_id text, event_type text, test boolean, event_created_at timestamptz,
    created_at timestamptz, trace_context jsonb)) WITH ORDINALITY
    AS d(id, endpoint_id, platform_id, event_id, event_type, test, event_created_at,
      created_at, trace_context, n)
  ORDER BY d.n
  ON CONFLICT (endpoint_id, event_id) DO NOTHING
  RETURNING id`;

/** Deliveries owed to endpoints: one per (endpoint, public event), sent oldest first. */
export class DeliveryRepository implements DeliveryStore {
  async lockIntakeOrder(tx: Queryable): Promise<void> {
    await sql`SELECT pg_advisory_xact_lock(hashtext('webhook-dispatcher.intake-order'))`.execute(db(tx));
  }

  async insertMany(tx: Queryable, deliveries: NewDelivery[]): Promise<string[]> {
    if (deliveries.length === 0) return [];
    // One statement for the whole fan-out (ADR 0022), its rows as JSON parameters: one
    // JSON.stringify instead of a dozen parameters a row for the client to encode, and one SQL text
    // prepared once per connection instead of a new one for every batch size.
    // Each event's payload once, spliced in as the JSON it is (a json field keeps its text as
    // written): no second escaping of every quote in it.
    const payloads = new Map<string, string>();
    for (const d of deliveries)
      if (!payloads.has(d.eventId))
        payloads.set(d.eventId, `{"event_id":${JSON.stringify(d.eventId)},"payload":${d.payload}}`);
    const rows = deliveries.map((d) => ({
      id: d.id,
      endpoint_id: d.endpointId,
      platform_id: d.platformId,
      event_id: d.eventId,
      event_type: d.eventType,
      test: d.test,
      event_created_at: d.eventCreatedAt,
      created_at: d.createdAt,
      trace_context: d.traceContext,
    }));
    const { rows: inserted } = await tx.query<{ id: string }>(
      INSERT_DELIVERIES,
      [`[${[...payloads.values()].join(',')}]`, JSON.stringify(rows)],
      { name: 'webhooks_insert_deliveries' },
    );
    return inserted.map((r) => r.id);
  }

  async find(q: Queryable, endpointId: string, id: string): Promise<Delivery | null> {
    const row = await deliveries(q)
      .where('d.id', '=', id)
      .where('d.endpointId', '=', endpointId)
      .executeTakeFirst();
    return row ?? null;
  }

  async findMany(q: Queryable, ids: string[]): Promise<Delivery[]> {
    if (ids.length === 0) return [];
    return deliveries(q)
      .where((eb) => eb('d.id', '=', eb.fn.any(sql<string[]>`${ids}::text[]`)))
      .execute();
  }

  async list(
    q: Queryable,
    endpointId: string,
    filter: { status?: DeliveryStatus | undefined; limit: number; offset: number },
  ): Promise<{ items: Delivery[]; total: number }> {
    let matching = deliveries(q).where('d.endpointId', '=', endpointId);
    if (filter.status !== undefined) matching = matching.where('d.status', '=', filter.status);
    const { rows, total } = await pageOf(matching.orderBy('d.seq', 'desc'), filter);
    return { items: rows, total };
  }

  async requeueManually(tx: Queryable, id: string, now: Date): Promise<void> {
    await db(tx)
      .updateTable('webhookDeliveries')
      .set({ status: 'pending', manual: true, nextAttemptAt: now })
      .where('id', '=', id)
      .execute();
  }

  async requeueFailedSince(
    q: Queryable,
    endpointId: string,
    since: Date,
    now: Date,
    limit: number,
  ): Promise<{ queued: number; more: boolean }> {
    const { rows } = await sql<{ id: string }>`
      UPDATE webhook_deliveries SET status = 'pending', manual = true, next_attempt_at = ${now.toISOString()}::timestamptz
      WHERE id IN (
        SELECT id FROM webhook_deliveries
        WHERE endpoint_id = ${endpointId} AND status = 'failed' AND created_at >= ${since.toISOString()}::timestamptz
        ORDER BY seq LIMIT ${limit}
      )
      RETURNING id`.execute(db(q));
    const left = await db(q)
      .selectFrom('webhookDeliveries')
      .select('id')
      .where('endpointId', '=', endpointId)
      .where('status', '=', 'failed')
      .where('createdAt', '>=', since)
      .limit(1)
      .executeTakeFirst();
    return { queued: rows.length, more: left !== undefined };
  }

  /** Several deliveries after their attempts, in one statement; a manual re-send is spent by it. */
  async recordAttempts(tx: Queryable, updates: DeliveryUpdate[]): Promise<void> {
    if (updates.length === 0) return;
    await updateDeliveries(updates).execute(db(tx));
  }

  async recordSucceeded(q: Queryable, owner: string, batches: SucceededBatch[]): Promise<string[]> {
    if (batches.length === 0) return [];
    const attempts = batches.flatMap((b) => b.attempts);
    const attemptEndpoints = batches.flatMap((b) => b.attempts.map(() => b.endpointId));
    const updates = batches.flatMap((b) => b.updates);
    // One statement for the batches of many endpoints (ADR 0022): each endpoint's closed circuit
    // and released lease (lease_until keeps the release time, so the least recently served
    // endpoints are leased first), their attempts and their deliveries. Fenced (issue #34): a
    // batch is recorded only if its endpoint's lease still has the owner and token it was sent
    // under; one whose worker stalled past its lease, taken by another since, is left out whole.
    // The endpoint's row lock orders this against a concurrent lease of it: a lease that commits
    // first changes the token, and this UPDATE rechecks the new row.
    const { rows } = await sql<{ id: string }>`
      WITH fenced AS (
        UPDATE webhook_endpoints AS e
        SET consecutive_failures = 0, failing_since = NULL, breaker_open_until = NULL,
          last_success_at = u.at, lease_owner = NULL, lease_until = u.at
        FROM unnest(
          ${batches.map((b) => b.endpointId)}::text[],
          ${batches.map((b) => b.leaseToken)}::bigint[],
          ${batches.map((b) => b.succeededAt.toISOString())}::timestamptz[]
        ) AS u(id, token, at)
        WHERE e.id = u.id AND e.lease_owner = ${owner} AND e.lease_token = u.token
        RETURNING e.id
      ), inserted AS (
        INSERT INTO webhook_attempts (delivery_id, number, attempted_at, outcome, response_status,
          response_body, duration_ms, error, next_retry_at)
        SELECT a.delivery_id, a.number, a.attempted_at, a.outcome, a.response_status, a.response_body,
          a.duration_ms, a.error, a.next_retry_at
        FROM unnest(
          ${attemptEndpoints}::text[],
          ${attempts.map((a) => a.deliveryId)}::text[],
          ${attempts.map((a) => a.number)}::int[],
          ${attempts.map((a) => a.attemptedAt.toISOString())}::timestamptz[],
          ${attempts.map((a) => a.outcome)}::text[],
          ${attempts.map((a) => a.responseStatus)}::int[],
          ${attempts.map((a) => a.responseBody)}::text[],
          ${attempts.map((a) => a.durationMs)}::int[],
          ${attempts.map((a) => a.error)}::text[],
          ${attempts.map((a) => a.nextRetryAt?.toISOString() ?? null)}::timestamptz[]
        ) AS a(endpoint_id, delivery_id, number, attempted_at, outcome, response_status, response_body,
          duration_ms, error, next_retry_at)
        WHERE a.endpoint_id IN (SELECT id FROM fenced)
      ), delivered AS (
        ${updateDeliveries(updates, true)}
      )
      SELECT id FROM fenced`.execute(db(q));
    return rows.map((r) => r.id);
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
