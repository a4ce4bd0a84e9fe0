import { executeNamed, jsonb, kyselyOn, pageOf, sql, type Queryable } from '@svc/storage';
import type { DeliveryStatus, Endpoint, EndpointPatch, EndpointStatus, EndpointStore } from '../domain/ports';
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

  async byId(q: Queryable, id: string): Promise<Endpoint | null> {
    const row = await db(q)
      .selectFrom('webhookEndpoints')
      .select(ENDPOINT)
      .where('id', '=', id)
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

  async leaseDue(q: Queryable, owner: string, limit: number, exclude: string[], now: Date, leaseUntil: Date) {
    const { rows } = await executeNamed(
      q,
      'webhooks_lease_due_endpoints',
      db(q)
        .with('due', (d) =>
          d
            .selectFrom('webhookEndpoints as e')
            .select('e.id')
            .where('e.status', '=', ENABLED)
            .where((eb) => eb.or([eb('e.leaseUntil', 'is', null), eb('e.leaseUntil', '<=', now)]))
            .where((eb) => eb.or([eb('e.breakerOpenUntil', 'is', null), eb('e.breakerOpenUntil', '<=', now)]))
            .where((eb) => eb.not(eb('e.id', '=', eb.fn.any(sql<string[]>`${exclude}::text[]`))))
            .where((eb) =>
              eb.exists(
                eb
                  .selectFrom('webhookDeliveries as d')
                  .select(sql.lit(1).as('one'))
                  .whereRef('d.endpointId', '=', 'e.id')
                  .where('d.status', '=', PENDING)
                  .where('d.nextAttemptAt', '<=', now),
              ),
            )
            .orderBy('e.leaseUntil', (order) => order.asc().nullsFirst())
            .orderBy('e.id')
            .limit(limit)
            .forUpdate('e')
            .skipLocked(),
        )
        .updateTable('webhookEndpoints')
        .set({ leaseOwner: owner, leaseUntil })
        .from('due')
        .whereRef('webhookEndpoints.id', '=', 'due.id')
        .returning('webhookEndpoints.id'),
    );
    return rows.map((row) => row.id);
  }

  async releaseLease(q: Queryable, endpointId: string, owner: string): Promise<void> {
    await executeNamed(
      q,
      'webhooks_release_lease',
      db(q)
        .updateTable('webhookEndpoints')
        .set({ leaseOwner: null, leaseUntil: null })
        .where('id', '=', endpointId)
        .where('leaseOwner', '=', owner),
    );
  }

  async renewLeases(q: Queryable, owner: string, endpointIds: string[], leaseUntil: Date): Promise<void> {
    if (endpointIds.length === 0) return;
    await executeNamed(
      q,
      'webhooks_renew_leases',
      db(q)
        .updateTable('webhookEndpoints')
        .set({ leaseUntil })
        .where((eb) => eb('id', '=', eb.fn.any(sql<string[]>`${endpointIds}::text[]`)))
        .where('leaseOwner', '=', owner),
    );
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
