import { selectPage, type Queryable } from '@svc/storage';
import type { GracePeriod } from '../domain/grace-period';
import type { GracePeriodFilter, GracePeriodStore } from '../domain/ports';
import { fromJson, isoOrNull, toDate, toDateOrNull, toNumber } from '@svc/storage';

export interface GracePeriodRow {
  id: string;
  platform_id: string;
  violation_id: string;
  box_id: string;
  claim_id: string;
  identity_name: string;
  box_owner_platform_id: string;
  policy: string;
  environment: string;
  enforcement: string;
  status: string;
  started_at: unknown;
  expires_at: unknown;
  paused_at: unknown;
  paused_ms: unknown;
  resolution: string | null;
  resolved_at: unknown;
  ended_at: unknown;
  day0_recipients: unknown;
}

export function toGracePeriod(row: GracePeriodRow): GracePeriod {
  return {
    id: row.id,
    platformId: row.platform_id,
    violationId: row.violation_id,
    boxId: row.box_id,
    claimId: row.claim_id,
    identityName: row.identity_name,
    boxOwnerPlatformId: row.box_owner_platform_id,
    policy: row.policy as GracePeriod['policy'],
    environment: row.environment as GracePeriod['environment'],
    enforcement: row.enforcement as GracePeriod['enforcement'],
    status: row.status as GracePeriod['status'],
    startedAt: toDate(row.started_at),
    expiresAt: toDate(row.expires_at),
    pausedAt: toDateOrNull(row.paused_at),
    pausedMs: toNumber(row.paused_ms),
    resolution: row.resolution,
    resolvedAt: toDateOrNull(row.resolved_at),
    endedAt: toDateOrNull(row.ended_at),
    day0Recipients: fromJson<string[]>(row.day0_recipients),
  };
}

/** Grace periods. */
export class GracePeriodRepository implements GracePeriodStore {
  async insert(tx: Queryable, g: GracePeriod): Promise<void> {
    await tx.query(
      `INSERT INTO grace_periods (id, platform_id, violation_id, box_id, claim_id, identity_name, box_owner_platform_id,
         policy, environment, enforcement, status, started_at, expires_at, paused_at, paused_ms, resolution, resolved_at,
         ended_at, day0_recipients)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19::jsonb)`,
      [
        g.id,
        g.platformId,
        g.violationId,
        g.boxId,
        g.claimId,
        g.identityName,
        g.boxOwnerPlatformId,
        g.policy,
        g.environment,
        g.enforcement,
        g.status,
        g.startedAt.toISOString(),
        g.expiresAt.toISOString(),
        isoOrNull(g.pausedAt),
        g.pausedMs,
        g.resolution,
        isoOrNull(g.resolvedAt),
        isoOrNull(g.endedAt),
        JSON.stringify(g.day0Recipients),
      ],
    );
  }

  async update(tx: Queryable, g: GracePeriod): Promise<void> {
    await tx.query(
      `UPDATE grace_periods SET status = $2, expires_at = $3, paused_at = $4, paused_ms = $5, resolution = $6,
         resolved_at = $7, ended_at = $8 WHERE id = $1`,
      [
        g.id,
        g.status,
        g.expiresAt.toISOString(),
        isoOrNull(g.pausedAt),
        g.pausedMs,
        g.resolution,
        isoOrNull(g.resolvedAt),
        isoOrNull(g.endedAt),
      ],
    );
  }

  async find(q: Queryable, id: string, options: { lock?: boolean } = {}): Promise<GracePeriod | null> {
    const { rows } = await q.query<GracePeriodRow>(
      `SELECT * FROM grace_periods WHERE id = $1 ${options.lock === true ? 'FOR UPDATE' : ''}`,
      [id],
    );
    const row = rows[0];
    return row === undefined ? null : toGracePeriod(row);
  }

  async findMany(q: Queryable, ids: string[]): Promise<Map<string, GracePeriod>> {
    const found = new Map<string, GracePeriod>();
    if (ids.length === 0) return found;
    const { rows } = await q.query<GracePeriodRow>('SELECT * FROM grace_periods WHERE id = ANY($1)', [ids]);
    for (const row of rows) found.set(row.id, toGracePeriod(row));
    return found;
  }

  async list(q: Queryable, filter: GracePeriodFilter): Promise<{ items: GracePeriod[]; total: number }> {
    const where: string[] = [];
    const params: unknown[] = [];
    if (filter.expiringAfter !== undefined) {
      params.push(filter.expiringAfter.toISOString());
      where.push(`expires_at > $${params.length}`);
    }
    if (filter.expiringBy !== undefined) {
      params.push(filter.expiringBy.toISOString());
      where.push(`expires_at <= $${params.length}`);
    }
    const { rows, total } = await selectPage<GracePeriodRow>(q, {
      select: '*',
      from: 'grace_periods',
      where,
      params,
      equals: [
        ['platform_id', filter.platformId],
        ['status', filter.status],
        ['box_id', filter.boxId],
      ],
      orderBy: 'started_at DESC, seq DESC',
      limit: filter.limit,
      offset: filter.offset,
    });
    return { items: rows.map(toGracePeriod), total };
  }

  async markEnded(tx: Queryable, gracePeriods: GracePeriod[]): Promise<void> {
    if (gracePeriods.length === 0) return;
    await tx.query(
      `UPDATE grace_periods SET status = e.status, ended_at = e.ended_at, paused_at = NULL
       FROM jsonb_to_recordset($1::jsonb) AS e(id text, status text, ended_at timestamptz)
       WHERE grace_periods.id = e.id`,
      [
        JSON.stringify(
          gracePeriods.map((g) => ({ id: g.id, status: g.status, ended_at: isoOrNull(g.endedAt) })),
        ),
      ],
    );
  }

  async open(q: Queryable, platformId: string, limit: number): Promise<GracePeriod[]> {
    const { rows } = await q.query<GracePeriodRow>(
      `SELECT * FROM grace_periods WHERE platform_id = $1 AND status IN ('active', 'paused')
       ORDER BY started_at DESC, seq DESC LIMIT $2`,
      [platformId, limit],
    );
    return rows.map(toGracePeriod);
  }
}
