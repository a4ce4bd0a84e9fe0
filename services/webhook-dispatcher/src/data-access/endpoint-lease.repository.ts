import { executeNamed, kyselyOn, sql, type Queryable, type Selectable } from '@svc/storage';
import type {
  Delivery,
  DeliveryStatus,
  DueRef,
  EndpointStatus,
  Lease,
  LeaseCheck,
  LeasedEndpoint,
} from '../domain/ports';
import type { DB } from './db.generated';

// The worker's leases on endpoints (EndpointRepository's lease methods): taking them with the
// endpoints' due deliveries, checking one before a POST, renewing and releasing them.

const db = (q: Queryable) => kyselyOn<DB>(q);

// Written out, not parameters, as before: a prepared statement's generic plan can use the partial
// index on pending deliveries (WHERE status = 'pending') only when the condition says so itself.
const ENABLED = sql.lit<EndpointStatus>('enabled');
const PENDING = sql.lit<DeliveryStatus>('pending');

// A row of the lease, typed from the generated tables: the leased endpoint (columns renamed
// endpoint*); and one of the leased endpoints' due deliveries, by reference.
type Leased = Pick<
  Selectable<DB['webhookEndpoints']>,
  'platformId' | 'url' | 'secret' | 'previousSecret' | 'previousSecretExpiresAt'
>;
type LeasedRow = { leasedId: string; leaseToken: number } & {
  [K in keyof Leased as `endpoint${Capitalize<K>}`]: Leased[K];
};
type DueRow = DueRef & { endpointId: string };

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

export async function leaseDue(
  q: Queryable,
  owner: string,
  limit: number,
  exclude: string[],
  now: Date,
  leaseUntil: Date,
  perEndpoint: number,
): Promise<LeasedEndpoint[]> {
  // One statement, no transaction around it (ADR 0022): take the endpoints (FOR UPDATE SKIP
  // LOCKED: a replica's concurrent lease skips them) and lease them. The least recently served
  // come first (a release stamps lease_until with its time).
  const { rows: leased } = await sql<LeasedRow>`
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
    )
    UPDATE webhook_endpoints AS e
    SET lease_owner = ${owner}, lease_until = ${leaseUntil}, lease_token = e.lease_token + 1
    FROM due WHERE e.id = due.id
    RETURNING e.id AS leased_id, e.lease_token, e.platform_id AS endpoint_platform_id,
      e.url AS endpoint_url, e.secret AS endpoint_secret, e.previous_secret AS endpoint_previous_secret,
      e.previous_secret_expires_at AS endpoint_previous_secret_expires_at`.execute(db(q));
  if (leased.length === 0) return [];
  // Then, in a statement of its own, the first batch of each, by reference (ADR 0036: the worker
  // has the payloads the intake handed it, and reads only those it has not). Read after the lease
  // committed, it sees every record of the endpoint's previous holder: that record released the
  // lease in the same statement, and one that has not is fenced off by the new token. (Read in the
  // lease's own statement, the batch could predate such a record, and each batch's first POST
  // needed a round trip to check that it was still due.)
  const { rows: due } = await sql<DueRow>`
    SELECT d.endpoint_id, d.id, d.attempt_count, d.manual
    FROM unnest(${leased.map((l) => l.leasedId)}::text[]) AS l(id)
    CROSS JOIN LATERAL (
      SELECT d.endpoint_id, d.id, d.attempt_count, d.manual, d.seq
      FROM webhook_deliveries AS d
      WHERE d.endpoint_id = l.id AND d.status = ${PENDING} AND d.next_attempt_at <= ${now}
      ORDER BY d.seq
      LIMIT ${perEndpoint}
    ) AS d
    ORDER BY d.endpoint_id, d.seq`.execute(db(q));
  const byEndpoint = new Map<string, LeasedEndpoint>();
  for (const row of leased)
    byEndpoint.set(row.leasedId, {
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
    });
  // An endpoint whose deliveries were taken meanwhile (a manual change) comes back with no batch.
  for (const { endpointId, ...ref } of due) byEndpoint.get(endpointId)?.due.push(ref);
  return [...byEndpoint.values()];
}

export async function checkLease(
  q: Queryable,
  lease: Lease,
  delivery: Pick<Delivery, 'id' | 'attemptCount'>,
  now: Date,
): Promise<LeaseCheck> {
  // Run before a batch's first POST: plain SQL text, prepared once per connection, one row by key.
  const { rows } = await q.query<{ held: boolean; live: boolean; due: boolean }>(
    CHECK_LEASE,
    [lease.endpointId, lease.owner, lease.token, now, delivery.id, delivery.attemptCount],
    { name: 'webhooks_check_lease' },
  );
  const row = rows[0];
  if (row === undefined || !row.held) return 'lost';
  return row.live && row.due ? 'send' : 'stop';
}

export async function releaseLease(q: Queryable, lease: Lease, now: Date): Promise<boolean> {
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

export async function renewLeases(
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
