import { executeNamed, jsonb, kyselyOn, pageOf, sql, type Queryable, type Selectable } from '@svc/storage';
import type {
  Delivery,
  DeliveryStatus,
  DueDeliveries,
  Endpoint,
  EndpointPatch,
  EndpointStatus,
  EndpointStore,
  Lease,
  LeaseCheck,
} from '../domain/ports';
import { DELIVERY_COLUMNS } from './delivery.repository';
import type { DB } from './db.generated';

const db = (q: Queryable) => kyselyOn<DB>(q);

// Written out, not parameters, as before: a prepared statement's generic plan can use the partial
// index on pending deliveries (WHERE status = 'pending') only when the condition says so itself.
const ENABLED = sql.lit<EndpointStatus>('enabled');
const PENDING = sql.lit<DeliveryStatus>('pending');

// An endpoint as the domain knows it: every column but the worker's lease.
const ENDPOINT = [
  'id',
  'platformId',
  'url',
  'events',
  'description',
  'status',
  'disabledReason',
  'disabledAt',
  'secret',
  'previousSecret',
  'previousSecretExpiresAt',
  'consecutiveFailures',
  'failingSince',
  'lastSuccessAt',
  'breakerOpenUntil',
  'createdAt',
  'updatedAt',
] as const;

// A row of the lease, typed from the generated tables: the leased endpoint (columns renamed
// endpoint*), and one of its due deliveries, every column null when it has none (LEFT JOIN LATERAL).
type Leased = Pick<
  Selectable<DB['webhookEndpoints']>,
  'platformId' | 'url' | 'secret' | 'previousSecret' | 'previousSecretExpiresAt'
>;
type DeliveryRow = Pick<Selectable<DB['webhookDeliveries']>, (typeof DELIVERY_COLUMNS)[number] | 'seq'>;
type LeasedPart = { leasedId: string; leaseToken: number } & {
  [K in keyof Leased as `endpoint${Capitalize<K>}`]: Leased[K];
};
type DueRow = LeasedPart & { [K in keyof DeliveryRow]: DeliveryRow[K] | null };

// Whether the lease is still the worker's (owner and token: no other worker took the endpoint
// since), unexpired, on an enabled endpoint, and the delivery about to be sent still pending as
// the lease read it (a lease statement whose snapshot predates another worker's record of it
// would send it again).
const CHECK_LEASE = `
    SELECT coalesce(e.lease_owner = $2 AND e.lease_token = $3, false) AS held,
      coalesce(e.lease_until > $4, false) AND e.status = 'enabled' AS live,
      EXISTS (
        SELECT 1 FROM webhook_deliveries AS d
        WHERE d.id = $5 AND d.endpoint_id = e.id AND d.status = 'pending' AND d.attempt_count = $6
      ) AS due
    FROM webhook_endpoints AS e WHERE e.id = $1`;

/** A lease row that carries a delivery: the join found one, so its NOT NULL columns are set. */
function hasDelivery(row: DueRow): row is LeasedPart & DeliveryRow {
  return row.id !== null;
}

/** Webhook endpoints: their settings, their circuit and the worker lease on each. */
export class EndpointRepository implements EndpointStore {
  async insert(tx: Queryable, e: Endpoint): Promise<void> {
    await db(tx)
      .insertInto('webhookEndpoints')
      .values({
        id: e.id,
        platformId: e.platformId,
        url: e.url,
        events: jsonb(e.events),
        description: e.description,
        status: e.status,
        secret: e.secret,
        createdAt: e.createdAt,
        updatedAt: e.updatedAt,
      })
      .execute();
  }

  async find(q: Queryable, platformId: string, id: string): Promise<Endpoint | null> {
    const row = await db(q)
      .selectFrom('webhookEndpoints')
      .select(ENDPOINT)
      .where('id', '=', id)
      .where('platformId', '=', platformId)
      .executeTakeFirst();
    return row ?? null;
  }

  async list(q: Queryable, platformId: string, page: { limit: number; offset: number }) {
    const { rows, total } = await pageOf(
      db(q)
        .selectFrom('webhookEndpoints')
        .select(ENDPOINT)
        .where('platformId', '=', platformId)
        .orderBy('createdAt', 'desc')
        .orderBy('id', 'desc'),
      page,
    );
    return { items: rows, total };
  }

  async enabledOf(q: Queryable, platformIds: string[]): Promise<Endpoint[]> {
    if (platformIds.length === 0) return [];
    const { rows } = await executeNamed(
      q,
      'webhooks_enabled_endpoints_of',
      db(q)
        .selectFrom('webhookEndpoints')
        .select(ENDPOINT)
        .where((eb) => eb('platformId', '=', eb.fn.any(sql<string[]>`${platformIds}::text[]`)))
        .where('status', '=', ENABLED)
        .orderBy('createdAt')
        .orderBy('id'),
    );
    return rows;
  }

  async update(tx: Queryable, id: string, patch: EndpointPatch, now: Date): Promise<void> {
    // Enabling clears the reason and the circuit; disabling by hand says so ('manual').
    const status =
      patch.status === 'enabled'
        ? {
            status: patch.status,
            disabledReason: null,
            disabledAt: null,
            consecutiveFailures: 0,
            failingSince: null,
            breakerOpenUntil: null,
          }
        : patch.status === 'disabled'
          ? { status: patch.status, disabledReason: 'manual', disabledAt: now }
          : {};
    await db(tx)
      .updateTable('webhookEndpoints')
      .set({
        ...(patch.url === undefined ? {} : { url: patch.url }),
        ...(patch.events === undefined ? {} : { events: jsonb(patch.events) }),
        ...(patch.description === undefined ? {} : { description: patch.description }),
        ...status,
        updatedAt: now,
      })
      .where('id', '=', id)
      .execute();
  }

  async rotateSecret(tx: Queryable, id: string, secret: string, previousExpiresAt: Date, now: Date) {
    await db(tx)
      .updateTable('webhookEndpoints')
      .set((eb) => ({
        previousSecret: eb.ref('secret'),
        previousSecretExpiresAt: previousExpiresAt,
        secret,
        updatedAt: now,
      }))
      .where('id', '=', id)
      .execute();
  }

  async lockPlatform(tx: Queryable, platformId: string): Promise<void> {
    // Transaction-scoped: released at commit or rollback.
    await sql`SELECT pg_advisory_xact_lock(hashtextextended(${`webhook-endpoints:${platformId}`}, 0))`.execute(
      db(tx),
    );
  }

  async countEnabled(q: Queryable, platformId: string): Promise<number> {
    const row = await db(q)
      .selectFrom('webhookEndpoints')
      .select((eb) => eb.fn.countAll<string>().as('n'))
      .where('platformId', '=', platformId)
      .where('status', '=', 'enabled')
      .executeTakeFirstOrThrow();
    return Number(row.n);
  }

  async delete(tx: Queryable, id: string): Promise<void> {
    await db(tx).deleteFrom('webhookEndpoints').where('id', '=', id).execute();
  }

  async disable(tx: Queryable, id: string, reason: string, now: Date): Promise<void> {
    await db(tx)
      .updateTable('webhookEndpoints')
      .set({ status: 'disabled', disabledReason: reason, disabledAt: now, updatedAt: now })
      .where('id', '=', id)
      .execute();
  }

  async leaseDue(
    q: Queryable,
    owner: string,
    limit: number,
    exclude: string[],
    now: Date,
    leaseUntil: Date,
    perEndpoint: number,
  ): Promise<DueDeliveries[]> {
    // One statement, no transaction around it (ADR 0022): take the endpoints (FOR UPDATE SKIP
    // LOCKED: a replica's concurrent lease skips them), lease them, and read the first batch of
    // each. The least recently served come first (a release stamps lease_until with its time).
    const { rows } = await sql<DueRow>`
      WITH due AS (
        SELECT e.id FROM webhook_endpoints AS e
        WHERE e.status = ${ENABLED}
          AND (e.lease_until IS NULL OR e.lease_until <= ${now})
          AND (e.breaker_open_until IS NULL OR e.breaker_open_until <= ${now})
          AND NOT (e.id = ANY (${exclude}::text[]))
          AND EXISTS (
            SELECT 1 FROM webhook_deliveries AS d
            WHERE d.endpoint_id = e.id AND d.status = ${PENDING} AND d.next_attempt_at <= ${now}
          )
        ORDER BY e.lease_until ASC NULLS FIRST, e.id
        LIMIT ${limit}
        FOR UPDATE OF e SKIP LOCKED
      ), leased AS (
        UPDATE webhook_endpoints AS e
        SET lease_owner = ${owner}, lease_until = ${leaseUntil}, lease_token = e.lease_token + 1
        FROM due WHERE e.id = due.id
        RETURNING e.id, e.lease_token, e.platform_id, e.url, e.secret, e.previous_secret, e.previous_secret_expires_at
      )
      SELECT l.id AS leased_id, l.lease_token, l.platform_id AS endpoint_platform_id, l.url AS endpoint_url, l.secret AS endpoint_secret,
        l.previous_secret AS endpoint_previous_secret,
        l.previous_secret_expires_at AS endpoint_previous_secret_expires_at, d.*
      FROM leased AS l
      LEFT JOIN LATERAL (
        SELECT ${sql.join(DELIVERY_COLUMNS.map((c) => sql.ref(`d.${c}`)))}, d.seq
        FROM webhook_deliveries AS d
        WHERE d.endpoint_id = l.id AND d.status = ${PENDING} AND d.next_attempt_at <= ${now}
        ORDER BY d.seq
        LIMIT ${perEndpoint}
      ) AS d ON true
      ORDER BY l.id, d.seq`.execute(db(q));
    const byEndpoint = new Map<string, DueDeliveries>();
    for (const row of rows) {
      let found = byEndpoint.get(row.leasedId);
      if (found === undefined) {
        found = {
          endpoint: {
            id: row.leasedId,
            platformId: row.endpointPlatformId,
            url: row.endpointUrl,
            secret: row.endpointSecret,
            previousSecret: row.endpointPreviousSecret,
            previousSecretExpiresAt: row.endpointPreviousSecretExpiresAt,
          },
          due: [],
          leaseToken: row.leaseToken,
        };
        byEndpoint.set(row.leasedId, found);
      }
      // An endpoint whose delivery was taken between the two reads comes back with no batch.
      if (!hasDelivery(row)) continue;
      const {
        leasedId: _leasedId,
        leaseToken: _leaseToken,
        endpointPlatformId: _platformId,
        endpointUrl: _url,
        endpointSecret: _secret,
        endpointPreviousSecret: _previousSecret,
        endpointPreviousSecretExpiresAt: _previousSecretExpiresAt,
        seq: _seq,
        ...delivery
      } = row;
      found.due.push(delivery);
    }
    return [...byEndpoint.values()];
  }

  async checkLease(
    q: Queryable,
    lease: Lease,
    delivery: Pick<Delivery, 'id' | 'attemptCount'>,
    now: Date,
  ): Promise<LeaseCheck> {
    // Run before every POST: plain SQL text, prepared once per connection, one row by primary key.
    const { rows } = await q.query<{ held: boolean; live: boolean; due: boolean }>(
      CHECK_LEASE,
      [lease.endpointId, lease.owner, lease.token, now, delivery.id, delivery.attemptCount],
      { name: 'webhooks_check_lease' },
    );
    const row = rows[0];
    if (row === undefined || !row.held) return 'lost';
    return row.live && row.due ? 'send' : 'stop';
  }

  async releaseLease(q: Queryable, lease: Lease, now: Date): Promise<boolean> {
    // lease_until keeps the release time: the least recently served endpoints are leased first.
    const { numAffectedRows } = await executeNamed(
      q,
      'webhooks_release_lease',
      db(q)
        .updateTable('webhookEndpoints')
        .set({ leaseOwner: null, leaseUntil: now })
        .where('id', '=', lease.endpointId)
        .where('leaseOwner', '=', lease.owner)
        .where('leaseToken', '=', lease.token),
    );
    return numAffectedRows > 0;
  }

  async renewLeases(
    q: Queryable,
    owner: string,
    leases: Array<Pick<Lease, 'endpointId' | 'token'>>,
    leaseUntil: Date,
  ): Promise<void> {
    if (leases.length === 0) return;
    // Never revives a lease another worker has taken since (its token differs): a stalled worker's
    // late renewal extends nothing but its own.
    await sql`
      UPDATE webhook_endpoints AS e SET lease_until = ${leaseUntil}
      FROM unnest(${leases.map((l) => l.endpointId)}::text[], ${leases.map((l) => l.token)}::bigint[])
        AS l(id, token)
      WHERE e.id = l.id AND e.lease_owner = ${owner} AND e.lease_token = l.token`.execute(db(q));
  }

  async recordSuccess(tx: Queryable, endpointId: string, now: Date): Promise<void> {
    await executeNamed(
      tx,
      'webhooks_endpoint_success',
      db(tx)
        .updateTable('webhookEndpoints')
        .set({ consecutiveFailures: 0, failingSince: null, breakerOpenUntil: null, lastSuccessAt: now })
        .where('id', '=', endpointId),
    );
  }

  async recordFailure(
    tx: Queryable,
    endpointId: string,
    now: Date,
    breakerThreshold: number,
    breakerOpenUntil: Date,
  ): Promise<{ consecutiveFailures: number; failingSince: Date }> {
    const { rows } = await executeNamed(
      tx,
      'webhooks_endpoint_failure',
      db(tx)
        .updateTable('webhookEndpoints')
        .set((eb) => ({
          consecutiveFailures: eb('consecutiveFailures', '+', 1),
          failingSince: eb.fn.coalesce('failingSince', eb.val(now)),
          // The cast: a CASE of a parameter and NULL would otherwise be text.
          breakerOpenUntil: eb
            .case()
            .when(eb(eb('consecutiveFailures', '+', 1), '>=', breakerThreshold))
            .then(sql<Date>`${breakerOpenUntil}::timestamptz`)
            .else(null)
            .end(),
        }))
        .where('id', '=', endpointId)
        .returning(['consecutiveFailures', 'failingSince']),
    );
    const row = rows[0];
    return { consecutiveFailures: row?.consecutiveFailures ?? 0, failingSince: row?.failingSince ?? now };
  }
}
