import { selectPage, type Queryable } from '@svc/storage';
import type {
  Attempt,
  Delivery,
  DeliveryStatus,
  DeliveryUpdate,
  Endpoint,
  EndpointPatch,
  NewDelivery,
  WebhookStore,
} from '../domain/ports';

interface EndpointRow {
  id: string;
  platform_id: string;
  url: string;
  events: string[];
  description: string | null;
  status: 'enabled' | 'disabled';
  disabled_reason: string | null;
  disabled_at: Date | string | null;
  secret: string;
  previous_secret: string | null;
  previous_secret_expires_at: Date | string | null;
  consecutive_failures: number;
  failing_since: Date | string | null;
  last_success_at: Date | string | null;
  breaker_open_until: Date | string | null;
  created_at: Date | string;
  updated_at: Date | string;
}

interface DeliveryRow {
  id: string;
  endpoint_id: string;
  platform_id: string;
  event_id: string;
  event_type: string;
  payload: string;
  status: DeliveryStatus;
  test: boolean;
  manual: boolean;
  attempt_count: number;
  next_attempt_at: Date | string | null;
  last_response_status: number | null;
  last_error: string | null;
  event_created_at: Date | string;
  created_at: Date | string;
}

interface AttemptRow {
  delivery_id: string;
  number: number;
  attempted_at: Date | string;
  outcome: 'succeeded' | 'failed';
  response_status: number | null;
  duration_ms: number;
  error: string | null;
  next_retry_at: Date | string | null;
}

const date = (value: Date | string): Date => new Date(value);
const dateOrNull = (value: Date | string | null): Date | null => (value === null ? null : new Date(value));

function toEndpoint(row: EndpointRow): Endpoint {
  return {
    id: row.id,
    platformId: row.platform_id,
    url: row.url,
    events: row.events,
    description: row.description,
    status: row.status,
    disabledReason: row.disabled_reason,
    disabledAt: dateOrNull(row.disabled_at),
    secret: row.secret,
    previousSecret: row.previous_secret,
    previousSecretExpiresAt: dateOrNull(row.previous_secret_expires_at),
    consecutiveFailures: Number(row.consecutive_failures),
    failingSince: dateOrNull(row.failing_since),
    lastSuccessAt: dateOrNull(row.last_success_at),
    breakerOpenUntil: dateOrNull(row.breaker_open_until),
    createdAt: date(row.created_at),
    updatedAt: date(row.updated_at),
  };
}

function toDelivery(row: DeliveryRow): Delivery {
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    platformId: row.platform_id,
    eventId: row.event_id,
    eventType: row.event_type,
    payload: row.payload,
    status: row.status,
    test: row.test,
    manual: row.manual,
    attemptCount: Number(row.attempt_count),
    nextAttemptAt: dateOrNull(row.next_attempt_at),
    lastResponseStatus: row.last_response_status === null ? null : Number(row.last_response_status),
    lastError: row.last_error,
    eventCreatedAt: date(row.event_created_at),
    createdAt: date(row.created_at),
  };
}

function toAttempt(row: AttemptRow): Attempt {
  return {
    deliveryId: row.delivery_id,
    number: Number(row.number),
    attemptedAt: date(row.attempted_at),
    outcome: row.outcome,
    responseStatus: row.response_status === null ? null : Number(row.response_status),
    durationMs: Number(row.duration_ms),
    error: row.error,
    nextRetryAt: dateOrNull(row.next_retry_at),
  };
}

const DELIVERY_COLUMNS = `id, endpoint_id, platform_id, event_id, event_type, payload, status, test, manual,
  attempt_count, next_attempt_at, last_response_status, last_error, event_created_at, created_at`;

/** Endpoints, deliveries and attempts in the dispatcher's database. */
export class WebhookRepository implements WebhookStore {
  constructor(private readonly db: Queryable) {}

  async insertEndpoint(e: Endpoint): Promise<void> {
    await this.db.query(
      `INSERT INTO webhook_endpoints (id, platform_id, url, events, description, status, secret, created_at, updated_at)
       VALUES ($1, $2, $3, $4::jsonb, $5, $6, $7, $8, $9)`,
      [
        e.id,
        e.platformId,
        e.url,
        JSON.stringify(e.events),
        e.description,
        e.status,
        e.secret,
        e.createdAt,
        e.updatedAt,
      ],
    );
  }

  async findEndpoint(platformId: string, id: string): Promise<Endpoint | null> {
    const { rows } = await this.db.query<EndpointRow>(
      'SELECT * FROM webhook_endpoints WHERE id = $1 AND platform_id = $2',
      [id, platformId],
    );
    return rows[0] === undefined ? null : toEndpoint(rows[0]);
  }

  async endpointById(id: string): Promise<Endpoint | null> {
    const { rows } = await this.db.query<EndpointRow>('SELECT * FROM webhook_endpoints WHERE id = $1', [id]);
    return rows[0] === undefined ? null : toEndpoint(rows[0]);
  }

  async listEndpoints(platformId: string, limit: number, offset: number) {
    const { rows, total } = await selectPage<EndpointRow>(this.db, {
      select: '*',
      from: 'webhook_endpoints',
      equals: [['platform_id', platformId]],
      orderBy: 'created_at DESC, id DESC',
      limit,
      offset,
    });
    return { items: rows.map(toEndpoint), total };
  }

  async enabledEndpoints(platformId: string): Promise<Endpoint[]> {
    const { rows } = await this.db.query<EndpointRow>(
      `SELECT * FROM webhook_endpoints WHERE platform_id = $1 AND status = 'enabled' ORDER BY created_at, id`,
      [platformId],
      { name: 'webhooks_enabled_endpoints' },
    );
    return rows.map(toEndpoint);
  }

  async updateEndpoint(id: string, patch: EndpointPatch, now: Date): Promise<void> {
    const reenable = patch.status === 'enabled';
    await this.db.query(
      `UPDATE webhook_endpoints SET
         url = COALESCE($2::text, url),
         events = COALESCE($3::jsonb, events),
         description = CASE WHEN $4::boolean THEN $5::text ELSE description END,
         status = COALESCE($6::text, status),
         disabled_reason = CASE WHEN $6 = 'enabled' THEN NULL WHEN $6 = 'disabled' THEN 'manual' ELSE disabled_reason END,
         disabled_at = CASE WHEN $6 = 'enabled' THEN NULL WHEN $6 = 'disabled' THEN $7::timestamptz ELSE disabled_at END,
         consecutive_failures = CASE WHEN $8::boolean THEN 0 ELSE consecutive_failures END,
         failing_since = CASE WHEN $8::boolean THEN NULL ELSE failing_since END,
         breaker_open_until = CASE WHEN $8::boolean THEN NULL ELSE breaker_open_until END,
         updated_at = $7::timestamptz
       WHERE id = $1`,
      [
        id,
        patch.url ?? null,
        patch.events === undefined ? null : JSON.stringify(patch.events),
        patch.description !== undefined,
        patch.description ?? null,
        patch.status ?? null,
        now,
        reenable,
      ],
    );
  }

  async rotateSecret(id: string, secret: string, previousExpiresAt: Date, now: Date): Promise<void> {
    await this.db.query(
      `UPDATE webhook_endpoints SET previous_secret = secret, previous_secret_expires_at = $3, secret = $2, updated_at = $4
       WHERE id = $1`,
      [id, secret, previousExpiresAt, now],
    );
  }

  async deleteEndpoint(id: string): Promise<void> {
    await this.db.query('DELETE FROM webhook_endpoints WHERE id = $1', [id]);
  }

  async disableEndpoint(id: string, reason: string, now: Date): Promise<void> {
    await this.db.query(
      `UPDATE webhook_endpoints SET status = 'disabled', disabled_reason = $2, disabled_at = $3, updated_at = $3
       WHERE id = $1`,
      [id, reason, now],
    );
  }

  async insertDeliveries(deliveries: NewDelivery[]): Promise<number> {
    let inserted = 0;
    for (const d of deliveries) {
      const result = await this.db.query(
        `INSERT INTO webhook_deliveries (id, endpoint_id, platform_id, event_id, event_type, payload, status, test,
           next_attempt_at, event_created_at, created_at)
         VALUES ($1, $2, $3, $4, $5, $6, 'pending', $7, $8, $9, $8)
         ON CONFLICT (endpoint_id, event_id) DO NOTHING`,
        [
          d.id,
          d.endpointId,
          d.platformId,
          d.eventId,
          d.eventType,
          d.payload,
          d.test,
          d.createdAt,
          d.eventCreatedAt,
        ],
        { name: 'webhooks_insert_delivery' },
      );
      inserted += result.rowCount;
    }
    return inserted;
  }

  async findDelivery(endpointId: string, id: string): Promise<Delivery | null> {
    const { rows } = await this.db.query<DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries WHERE id = $1 AND endpoint_id = $2`,
      [id, endpointId],
    );
    return rows[0] === undefined ? null : toDelivery(rows[0]);
  }

  async listDeliveries(
    endpointId: string,
    status: DeliveryStatus | undefined,
    limit: number,
    offset: number,
  ) {
    const { rows, total } = await selectPage<DeliveryRow>(this.db, {
      select: DELIVERY_COLUMNS,
      from: 'webhook_deliveries',
      equals: [
        ['endpoint_id', endpointId],
        ['status', status ?? undefined],
      ],
      orderBy: 'seq DESC',
      limit,
      offset,
    });
    return { items: rows.map(toDelivery), total };
  }

  async attemptsOf(deliveryIds: string[]): Promise<Attempt[]> {
    if (deliveryIds.length === 0) return [];
    const { rows } = await this.db.query<AttemptRow>(
      `SELECT * FROM webhook_attempts WHERE delivery_id = ANY($1::text[]) ORDER BY delivery_id, number`,
      [deliveryIds],
    );
    return rows.map(toAttempt);
  }

  async requeueManually(id: string, now: Date): Promise<void> {
    await this.db.query(
      `UPDATE webhook_deliveries SET status = 'pending', manual = true, next_attempt_at = $2 WHERE id = $1`,
      [id, now],
    );
  }

  async leaseDueEndpoints(owner: string, limit: number, exclude: string[], now: Date, leaseUntil: Date) {
    const { rows } = await this.db.query<{ id: string }>(
      `WITH due AS (
         SELECT e.id FROM webhook_endpoints e
         WHERE e.status = 'enabled'
           AND (e.lease_until IS NULL OR e.lease_until <= $2)
           AND (e.breaker_open_until IS NULL OR e.breaker_open_until <= $2)
           AND NOT (e.id = ANY($4::text[]))
           AND EXISTS (SELECT 1 FROM webhook_deliveries d
                       WHERE d.endpoint_id = e.id AND d.status = 'pending' AND d.next_attempt_at <= $2)
         ORDER BY e.lease_until NULLS FIRST, e.id
         LIMIT $3
         FOR UPDATE OF e SKIP LOCKED
       )
       UPDATE webhook_endpoints SET lease_owner = $1, lease_until = $5
       FROM due WHERE webhook_endpoints.id = due.id
       RETURNING webhook_endpoints.id`,
      [owner, now, limit, exclude, leaseUntil],
      { name: 'webhooks_lease_due_endpoints' },
    );
    return rows.map((row) => row.id);
  }

  async releaseLease(endpointId: string, owner: string): Promise<void> {
    await this.db.query(
      `UPDATE webhook_endpoints SET lease_owner = NULL, lease_until = NULL WHERE id = $1 AND lease_owner = $2`,
      [endpointId, owner],
      { name: 'webhooks_release_lease' },
    );
  }

  async renewLeases(owner: string, endpointIds: string[], leaseUntil: Date): Promise<void> {
    if (endpointIds.length === 0) return;
    await this.db.query(
      `UPDATE webhook_endpoints SET lease_until = $3 WHERE id = ANY($2::text[]) AND lease_owner = $1`,
      [owner, endpointIds, leaseUntil],
      { name: 'webhooks_renew_leases' },
    );
  }

  async nextDueDelivery(endpointId: string, now: Date): Promise<Delivery | null> {
    const { rows } = await this.db.query<DeliveryRow>(
      `SELECT ${DELIVERY_COLUMNS} FROM webhook_deliveries
       WHERE endpoint_id = $1 AND status = 'pending' AND next_attempt_at <= $2
       ORDER BY seq LIMIT 1`,
      [endpointId, now],
      { name: 'webhooks_next_due_delivery' },
    );
    return rows[0] === undefined ? null : toDelivery(rows[0]);
  }

  async recordAttempt(a: Attempt, d: DeliveryUpdate): Promise<void> {
    await this.db.query(
      `INSERT INTO webhook_attempts (delivery_id, number, attempted_at, outcome, response_status, duration_ms, error, next_retry_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
      [
        a.deliveryId,
        a.number,
        a.attemptedAt,
        a.outcome,
        a.responseStatus,
        a.durationMs,
        a.error,
        a.nextRetryAt,
      ],
      { name: 'webhooks_insert_attempt' },
    );
    await this.db.query(
      `UPDATE webhook_deliveries SET status = $2, attempt_count = $3, next_attempt_at = $4,
         last_response_status = $5, last_error = $6, manual = false
       WHERE id = $1`,
      [d.id, d.status, d.attemptCount, d.nextAttemptAt, d.lastResponseStatus, d.lastError],
      { name: 'webhooks_update_delivery' },
    );
  }

  async recordEndpointSuccess(endpointId: string, now: Date): Promise<void> {
    await this.db.query(
      `UPDATE webhook_endpoints SET consecutive_failures = 0, failing_since = NULL, breaker_open_until = NULL,
         last_success_at = $2
       WHERE id = $1`,
      [endpointId, now],
      { name: 'webhooks_endpoint_success' },
    );
  }

  async recordEndpointFailure(
    endpointId: string,
    now: Date,
    breakerThreshold: number,
    breakerOpenUntil: Date,
  ) {
    const { rows } = await this.db.query<{ consecutive_failures: number; failing_since: Date | string }>(
      `UPDATE webhook_endpoints SET
         consecutive_failures = consecutive_failures + 1,
         failing_since = COALESCE(failing_since, $2),
         breaker_open_until = CASE WHEN consecutive_failures + 1 >= $3 THEN $4::timestamptz ELSE NULL END
       WHERE id = $1
       RETURNING consecutive_failures, failing_since`,
      [endpointId, now, breakerThreshold, breakerOpenUntil],
      { name: 'webhooks_endpoint_failure' },
    );
    const row = rows[0];
    return {
      consecutiveFailures: Number(row?.consecutive_failures ?? 0),
      failingSince: row === undefined ? now : date(row.failing_since),
    };
  }

  async countPending(): Promise<number> {
    const { rows } = await this.db.query<{ n: string }>(
      `SELECT count(*) AS n FROM webhook_deliveries WHERE status = 'pending'`,
    );
    return Number(rows[0]?.n ?? 0);
  }
}
