import { jsonb, kyselyOn, pageOf, sql, type Jsonified, type Queryable } from '@svc/storage';
import type { GracePeriod } from '../domain/grace-period';
import type { GracePeriodFilter, GracePeriodStore } from '../domain/ports';
import type { DB } from './db.generated';

const db = (q: Queryable) => kyselyOn<DB>(q);

/** The grace periods table without its insertion order (`seq`, for ordering only). */
function gracePeriods(q: Queryable) {
  return db(q)
    .selectFrom('gracePeriods')
    .select([
      'id',
      'platformId',
      'violationId',
      'boxId',
      'claimId',
      'identityName',
      'boxOwnerPlatformId',
      'policy',
      'environment',
      'enforcement',
      'status',
      'startedAt',
      'expiresAt',
      'pausedAt',
      'pausedMs',
      'resolution',
      'resolvedAt',
      'endedAt',
      'day0Recipients',
    ]);
}

const dateOrNull = (value: string | null): Date | null => (value === null ? null : new Date(value));

/** A grace period read as jsonb (beside its timeline step): the dates come back as ISO strings. */
export function gracePeriodFromJson({
  seq: _seq,
  ...g
}: Jsonified<GracePeriod & { seq: number }>): GracePeriod {
  return {
    ...g,
    startedAt: new Date(g.startedAt),
    expiresAt: new Date(g.expiresAt),
    pausedAt: dateOrNull(g.pausedAt),
    resolvedAt: dateOrNull(g.resolvedAt),
    endedAt: dateOrNull(g.endedAt),
  };
}

/** Grace periods. */
export class GracePeriodRepository implements GracePeriodStore {
  async insert(tx: Queryable, g: GracePeriod): Promise<void> {
    await db(tx)
      .insertInto('gracePeriods')
      .values({
        id: g.id,
        platformId: g.platformId,
        violationId: g.violationId,
        boxId: g.boxId,
        claimId: g.claimId,
        identityName: g.identityName,
        boxOwnerPlatformId: g.boxOwnerPlatformId,
        policy: g.policy,
        environment: g.environment,
        enforcement: g.enforcement,
        status: g.status,
        startedAt: g.startedAt,
        expiresAt: g.expiresAt,
        pausedAt: g.pausedAt,
        pausedMs: g.pausedMs,
        resolution: g.resolution,
        resolvedAt: g.resolvedAt,
        endedAt: g.endedAt,
        day0Recipients: jsonb(g.day0Recipients),
      })
      .execute();
  }

  async update(tx: Queryable, g: GracePeriod): Promise<void> {
    await db(tx)
      .updateTable('gracePeriods')
      .set({
        status: g.status,
        expiresAt: g.expiresAt,
        pausedAt: g.pausedAt,
        pausedMs: g.pausedMs,
        resolution: g.resolution,
        resolvedAt: g.resolvedAt,
        endedAt: g.endedAt,
      })
      .where('id', '=', g.id)
      .execute();
  }

  async find(q: Queryable, id: string, options: { lock?: boolean } = {}): Promise<GracePeriod | null> {
    const row = await gracePeriods(q)
      .where('id', '=', id)
      .$if(options.lock === true, (query) => query.forUpdate())
      .executeTakeFirst();
    return row ?? null;
  }

  async findMany(q: Queryable, ids: string[]): Promise<Map<string, GracePeriod>> {
    const found = new Map<string, GracePeriod>();
    if (ids.length === 0) return found;
    const rows = await gracePeriods(q)
      .where((eb) => eb('id', '=', eb.fn.any(eb.val(ids))))
      .execute();
    for (const row of rows) found.set(row.id, row);
    return found;
  }

  async list(q: Queryable, filter: GracePeriodFilter): Promise<{ items: GracePeriod[]; total: number }> {
    let matching = gracePeriods(q).where('platformId', '=', filter.platformId);
    if (filter.status !== undefined) matching = matching.where('status', '=', filter.status);
    if (filter.boxId !== undefined) matching = matching.where('boxId', '=', filter.boxId);
    if (filter.expiringAfter !== undefined) matching = matching.where('expiresAt', '>', filter.expiringAfter);
    if (filter.expiringBy !== undefined) matching = matching.where('expiresAt', '<=', filter.expiringBy);
    const { rows, total } = await pageOf(
      matching.orderBy('startedAt', 'desc').orderBy('seq', 'desc'),
      filter,
    );
    return { items: rows, total };
  }

  async markEnded(tx: Queryable, ended: GracePeriod[]): Promise<void> {
    if (ended.length === 0) return;
    const recordset = JSON.stringify(ended.map((g) => ({ id: g.id, status: g.status, ended_at: g.endedAt })));
    await db(tx)
      .updateTable('gracePeriods')
      .from(
        sql<{
          id: string;
          status: GracePeriod['status'];
          endedAt: Date | null;
        }>`jsonb_to_recordset(${recordset}::jsonb)`.as<'e'>(
          sql`e(id text, status text, ended_at timestamptz)`,
        ),
      )
      .set((eb) => ({ status: eb.ref('e.status'), endedAt: eb.ref('e.endedAt'), pausedAt: null }))
      .whereRef('gracePeriods.id', '=', 'e.id')
      .execute();
  }

  async open(q: Queryable, platformId: string, limit: number): Promise<GracePeriod[]> {
    return gracePeriods(q)
      .where('platformId', '=', platformId)
      .where('status', 'in', ['active', 'paused'])
      .orderBy('startedAt', 'desc')
      .orderBy('seq', 'desc')
      .limit(limit)
      .execute();
  }
}
