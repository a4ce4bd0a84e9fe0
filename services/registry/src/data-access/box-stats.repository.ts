import type { Queryable } from '@svc/storage';
import {
  periodBounds,
  type BoxStatistics,
  type BoxStatsSummary,
  type FeeFact,
  type LicenseFact,
  type StatusFact,
  type UsageFact,
  type ViolationFact,
} from '../domain/box-stats';
import type { BoxStatsStore } from '../domain/ports';
import { fromJson, toNumber } from '@svc/storage';

// A fact replaces the recorded one only when it is at least as recent: the entity version first
// (ADR 0010), then the instant and rank (the only order among unversioned events, version 0).
const NEWER = (table: string) =>
  `(EXCLUDED.event_version, EXCLUDED.event_at, EXCLUDED.event_rank)
     >= (${table}.event_version, ${table}.event_at, ${table}.event_rank)`;

function statusUpsert(table: string, key: string, extraColumns: string[] = []): string {
  const columns = [key, 'box_id', 'status', 'event_at', 'event_rank', 'event_version', ...extraColumns];
  const values = columns.map((_, i) => `$${i + 1}`).join(', ');
  const newer = NEWER(table);
  const fromNewer = (column: string) =>
    `${column} = CASE WHEN ${newer} THEN EXCLUDED.${column} ELSE ${table}.${column} END`;
  return `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${values})
    ON CONFLICT (${key}) DO UPDATE SET
      ${['status', 'event_rank', 'event_at', 'event_version'].map(fromNewer).join(',\n      ')}`;
}

/** One count of a `json_object_agg` (absent key: 0). */
function counted(aggregate: unknown, key: string): number {
  const counts =
    aggregate === null || aggregate === undefined ? {} : fromJson<Record<string, unknown>>(aggregate);
  return toNumber(counts[key] ?? 0);
}

/** The box statistics read model. */
export class BoxStatsRepository implements BoxStatsStore {
  async recordViolation(tx: Queryable, fact: ViolationFact): Promise<void> {
    await tx.query(
      `${statusUpsert('stats_violations', 'violation_id', ['detected_at', 'resolved_at', 'resolution', 'resolved_by'])},
        detected_at = COALESCE(stats_violations.detected_at, EXCLUDED.detected_at),
        resolved_at = COALESCE(stats_violations.resolved_at, EXCLUDED.resolved_at),
        resolution = CASE WHEN EXCLUDED.resolution IS NOT NULL AND ${NEWER('stats_violations')}
          THEN EXCLUDED.resolution ELSE stats_violations.resolution END,
        resolved_by = CASE WHEN EXCLUDED.resolution IS NOT NULL AND ${NEWER('stats_violations')}
          THEN EXCLUDED.resolved_by ELSE stats_violations.resolved_by END`,
      [
        fact.id,
        fact.boxId,
        fact.status,
        fact.at.toISOString(),
        fact.rank,
        fact.version,
        fact.detectedAt?.toISOString() ?? null,
        fact.resolvedAt?.toISOString() ?? null,
        fact.resolution,
        fact.resolvedBy,
      ],
    );
  }

  async recordGracePeriod(tx: Queryable, fact: StatusFact): Promise<void> {
    await tx.query(statusUpsert('stats_grace_periods', 'grace_period_id'), [
      fact.id,
      fact.boxId,
      fact.status,
      fact.at.toISOString(),
      fact.rank,
      fact.version,
    ]);
  }

  async recordLicense(tx: Queryable, fact: LicenseFact): Promise<void> {
    await tx.query(
      statusUpsert('stats_licenses', 'license_id', ['licensee_platform_id', 'licensee_platform_name']),
      [
        fact.id,
        fact.boxId,
        fact.status,
        fact.at.toISOString(),
        fact.rank,
        fact.version,
        fact.licenseePlatformId,
        fact.licenseePlatformName,
      ],
    );
  }

  async recordLicenseRequest(tx: Queryable, fact: StatusFact): Promise<void> {
    await tx.query(statusUpsert('stats_license_requests', 'request_id'), [
      fact.id,
      fact.boxId,
      fact.status,
      fact.at.toISOString(),
      fact.rank,
      fact.version,
    ]);
  }

  async recordUsage(tx: Queryable, fact: UsageFact): Promise<void> {
    // One report per license and period; a correction (higher version) replaces it.
    await tx.query(
      `INSERT INTO stats_usage (license_id, period, version, box_id, licensee_platform_id, licensee_platform_name,
         users, subscriptions_cents, messages_cents, tips_cents, total_cents)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11)
       ON CONFLICT (license_id, period) DO UPDATE SET
         version = EXCLUDED.version, licensee_platform_name = EXCLUDED.licensee_platform_name,
         users = EXCLUDED.users, subscriptions_cents = EXCLUDED.subscriptions_cents,
         messages_cents = EXCLUDED.messages_cents, tips_cents = EXCLUDED.tips_cents, total_cents = EXCLUDED.total_cents
       WHERE EXCLUDED.version > stats_usage.version`,
      [
        fact.licenseId,
        fact.period,
        fact.version,
        fact.boxId,
        fact.licenseePlatformId,
        fact.licenseePlatformName,
        fact.users,
        fact.subscriptionsCents,
        fact.messagesCents,
        fact.tipsCents,
        fact.totalCents,
      ],
    );
  }

  async recordFee(tx: Queryable, fact: FeeFact): Promise<void> {
    // Billing's notices carry the period's whole current fee; a higher version replaces it, so a
    // redelivered or late older notice changes nothing.
    await tx.query(
      `INSERT INTO stats_fees (license_id, period, version, box_id, licensee_platform_id, amount_cents)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (license_id, period) DO UPDATE SET
         version = EXCLUDED.version, amount_cents = EXCLUDED.amount_cents
       WHERE EXCLUDED.version > stats_fees.version`,
      [fact.licenseId, fact.period, fact.version, fact.boxId, fact.licenseePlatformId, fact.amountCents],
    );
  }

  async summaries(q: Queryable, boxIds: string[], period: string): Promise<Map<string, BoxStatsSummary>> {
    const out = new Map<string, BoxStatsSummary>();
    if (boxIds.length === 0) return out;
    const { rows } = await q.query<Record<string, unknown>>(
      `SELECT ids.box_id,
         (SELECT count(*) FROM stats_violations v WHERE v.box_id = ids.box_id) AS total_violations,
         (SELECT count(*) FROM stats_violations v WHERE v.box_id = ids.box_id AND v.status = 'resolved') AS resolved_violations,
         (SELECT count(*) FROM stats_grace_periods g WHERE g.box_id = ids.box_id AND g.status IN ('active', 'paused')) AS active_grace_periods,
         (SELECT count(DISTINCT l.licensee_platform_id) FROM stats_licenses l WHERE l.box_id = ids.box_id AND l.status = 'active') AS licensed_platforms,
         (SELECT count(*) FROM stats_licenses l WHERE l.box_id = ids.box_id) AS total_licenses,
         (SELECT count(*) FROM stats_licenses l WHERE l.box_id = ids.box_id AND l.status = 'active') AS active_licenses,
         (SELECT COALESCE(sum(u.total_cents), 0) FROM stats_usage u WHERE u.box_id = ids.box_id AND u.period = $2)
           + (SELECT COALESCE(sum(f.amount_cents), 0) FROM stats_fees f WHERE f.box_id = ids.box_id AND f.period = $2) AS monthly_cents,
         (SELECT COALESCE(sum(u.total_cents), 0) FROM stats_usage u WHERE u.box_id = ids.box_id)
           + (SELECT COALESCE(sum(f.amount_cents), 0) FROM stats_fees f WHERE f.box_id = ids.box_id) AS lifetime_cents
       FROM unnest($1::text[]) AS ids(box_id)`,
      [boxIds, period],
    );
    for (const row of rows) {
      out.set(String(row.box_id), {
        totalViolations: toNumber(row.total_violations),
        resolvedViolations: toNumber(row.resolved_violations),
        activeGracePeriods: toNumber(row.active_grace_periods),
        licensedPlatforms: toNumber(row.licensed_platforms),
        totalLicenses: toNumber(row.total_licenses),
        activeLicenses: toNumber(row.active_licenses),
        monthlyRevenueCents: toNumber(row.monthly_cents),
        lifetimeRevenueCents: toNumber(row.lifetime_cents),
      });
    }
    return out;
  }

  async statistics(q: Queryable, boxId: string, period: string): Promise<BoxStatistics> {
    const { start, end } = periodBounds(period);
    const counts = await q.query<Record<string, unknown>>(
      `SELECT
         (SELECT count(*) FROM stats_violations WHERE box_id = $1 AND detected_at >= $2 AND detected_at < $3) AS v_detected,
         (SELECT count(*) FROM stats_violations WHERE box_id = $1 AND status = 'resolved' AND resolved_at >= $2 AND resolved_at < $3) AS v_resolved,
         (SELECT count(*) FROM stats_violations WHERE box_id = $1 AND status = 'pending') AS v_pending,
         (SELECT count(*) FROM stats_violations WHERE box_id = $1 AND status = 'appealed') AS v_appealed,
         (SELECT json_object_agg(k, n) FROM (SELECT resolution AS k, count(*) AS n FROM stats_violations
            WHERE box_id = $1 AND status = 'resolved' AND resolved_at >= $2 AND resolved_at < $3
            GROUP BY resolution) r) AS v_resolutions,
         (SELECT json_object_agg(k, n) FROM (SELECT resolved_by AS k, count(*) AS n FROM stats_violations
            WHERE box_id = $1 AND status = 'resolved' AND resolved_at >= $2 AND resolved_at < $3
              AND resolved_by IS NOT NULL GROUP BY resolved_by) b) AS v_resolved_by,
         (SELECT count(*) FROM stats_grace_periods WHERE box_id = $1 AND status IN ('active', 'paused')) AS g_active,
         (SELECT count(*) FROM stats_grace_periods WHERE box_id = $1 AND status = 'expired') AS g_expired,
         (SELECT count(*) FROM stats_grace_periods WHERE box_id = $1 AND status = 'resolved') AS g_resolved,
         (SELECT count(*) FROM stats_licenses WHERE box_id = $1) AS l_total,
         (SELECT count(*) FROM stats_licenses WHERE box_id = $1 AND status = 'active') AS l_active,
         (SELECT count(*) FROM stats_licenses WHERE box_id = $1 AND status = 'pending')
           + (SELECT count(*) FROM stats_license_requests WHERE box_id = $1 AND status = 'pending') AS l_pending,
         (SELECT count(*) FROM stats_licenses WHERE box_id = $1 AND status = 'expired') AS l_expired,
         (SELECT count(DISTINCT licensee_platform_id) FROM stats_licenses WHERE box_id = $1 AND status = 'active') AS p_licensed,
         (SELECT COALESCE(sum(total_cents), 0) FROM stats_usage WHERE box_id = $1 AND period = $4)
           + (SELECT COALESCE(sum(amount_cents), 0) FROM stats_fees WHERE box_id = $1 AND period = $4) AS r_monthly,
         (SELECT COALESCE(sum(total_cents), 0) FROM stats_usage WHERE box_id = $1)
           + (SELECT COALESCE(sum(amount_cents), 0) FROM stats_fees WHERE box_id = $1) AS r_lifetime,
         (SELECT COALESCE(sum(amount_cents), 0) FROM stats_fees WHERE box_id = $1 AND period = $4) AS r_fees,
         (SELECT COALESCE(sum(subscriptions_cents), 0) FROM stats_usage WHERE box_id = $1 AND period = $4) AS r_subscriptions,
         (SELECT COALESCE(sum(messages_cents), 0) FROM stats_usage WHERE box_id = $1 AND period = $4) AS r_messages,
         (SELECT COALESCE(sum(tips_cents), 0) FROM stats_usage WHERE box_id = $1 AND period = $4) AS r_tips`,
      [boxId, start.toISOString(), end.toISOString(), period],
    );
    // A platform's revenue is what it reported plus the license fees it was billed for the period
    // (its name from its usage reports, else from its license).
    const top = await q.query<{ name: string; revenue_cents: unknown; users: unknown }>(
      `SELECT COALESCE(max(name), licensee_platform_id) AS name, sum(cents) AS revenue_cents, sum(users) AS users
       FROM (
         SELECT licensee_platform_id, licensee_platform_name AS name, total_cents AS cents, users
         FROM stats_usage WHERE box_id = $1 AND period = $2
         UNION ALL
         SELECT f.licensee_platform_id, l.licensee_platform_name, f.amount_cents, 0
         FROM stats_fees f LEFT JOIN stats_licenses l ON l.license_id = f.license_id
         WHERE f.box_id = $1 AND f.period = $2 AND f.amount_cents > 0
       ) AS revenue
       GROUP BY licensee_platform_id ORDER BY sum(cents) DESC, COALESCE(max(name), licensee_platform_id) LIMIT 5`,
      [boxId, period],
    );
    const c = counts.rows[0] ?? {};
    const n = (key: string) => toNumber(c[key]);
    return {
      boxId,
      period,
      violations: {
        detected: n('v_detected'),
        resolved: n('v_resolved'),
        pending: n('v_pending'),
        appealed: n('v_appealed'),
        resolutions: {
          licensed: counted(c.v_resolutions, 'licensed'),
          removed: counted(c.v_resolutions, 'removed'),
          modified: counted(c.v_resolutions, 'modified'),
          parody: counted(c.v_resolutions, 'parody'),
        },
        resolvedBy: {
          platform: counted(c.v_resolved_by, 'platform'),
          license: counted(c.v_resolved_by, 'license'),
          avatarChange: counted(c.v_resolved_by, 'avatar_change'),
        },
      },
      gracePeriods: { active: n('g_active'), expired: n('g_expired'), resolved: n('g_resolved') },
      licenses: {
        total: n('l_total'),
        active: n('l_active'),
        pending: n('l_pending'),
        expired: n('l_expired'),
      },
      revenueCents: {
        monthly: n('r_monthly'),
        lifetime: n('r_lifetime'),
        byType: {
          subscriptions: n('r_subscriptions'),
          messages: n('r_messages'),
          tips: n('r_tips'),
          fees: n('r_fees'),
        },
      },
      platforms: {
        licensed: n('p_licensed'),
        topPlatforms: top.rows.map((row) => ({
          name: row.name,
          revenueCents: toNumber(row.revenue_cents),
          users: toNumber(row.users),
        })),
      },
    };
  }
}
