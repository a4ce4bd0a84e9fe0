import { executeNamed, jsonb, kyselyOn, pageOf, sql, type Queryable } from '@svc/storage';
import type { Endpoint, EndpointPatch, EndpointStatus, EndpointStore } from '../domain/ports';
import type { DB } from './db.generated';
import { checkLease, leaseDue, releaseLease, renewLeases } from './endpoint-lease.repository';

const db = (q: Queryable) => kyselyOn<DB>(q);

// Written out, not a parameter: a prepared statement's generic plan can use the partial index
// on pending deliveries only when the condition says so itself.
const ENABLED = sql.lit<EndpointStatus>('enabled');

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

  // The worker's leases: endpoint-lease.repository.ts.
  leaseDue = leaseDue;
  checkLease = checkLease;
  releaseLease = releaseLease;
  renewLeases = renewLeases;

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
