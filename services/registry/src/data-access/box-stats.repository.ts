import type { Cents } from '@svc/money';
import { kyselyOn, sql, type Queryable } from '@svc/storage';
import {
  type BoxStatistics,
  type BoxStatsSummary,
  type FeeFact,
  type LicenseFact,
  type StatusFact,
  type UsageFact,
  type ViolationFact,
} from '../domain/box-stats';
import type { BoxStatsStore } from '../domain/ports';
import type { DB } from './db.generated';
import { StatsRevenueRepository } from './stats-revenue.repository';
import { StatsStatusRepository } from './stats-status.repository';

const db = (q: Queryable) => kyselyOn<DB>(q);

// count(*) is int8 and a sum of bigint is numeric: cast to int8, which both engines give as a
// number (packages/storage). A scalar subquery that finds nothing gives NULL: 0.
const count = sql<number>`count(*)`;
const sumOf = (column: string) => sql<number>`COALESCE(sum(${sql.ref(column)}), 0)::int8`;
const n = (value: number | null | undefined): number => value ?? 0;
// Money is summed as numeric and read as text, never as a number (exact at any size: ADR 0039).
const sumCentsOf = (column: string) => sql<string>`COALESCE(sum(${sql.ref(column)}), 0)::text`;
const cents = (value: string | null | undefined): Cents => BigInt(value ?? 0);

/** The counts of `column`'s values among a box's resolved violations of the period, by value. */
async function resolvedBy(
  q: Queryable,
  boxId: string,
  bounds: { start: Date; end: Date },
  column: 'resolution' | 'resolvedBy',
): Promise<Map<string | null, number>> {
  const rows = await db(q)
    .selectFrom('statsViolations')
    .select([`${column} as key`, count.as('n')])
    .where('boxId', '=', boxId)
    .where('status', '=', 'resolved')
    .where('resolvedAt', '>=', bounds.start)
    .where('resolvedAt', '<', bounds.end)
    .groupBy(column)
    .execute();
  return new Map(rows.map((row) => [row.key, row.n]));
}

/** The box statistics read model: the facts are written per table, read here together. */
export class BoxStatsRepository implements BoxStatsStore {
  private readonly status = new StatsStatusRepository();
  private readonly revenue = new StatsRevenueRepository();

  recordViolation(tx: Queryable, fact: ViolationFact): Promise<void> {
    return this.status.recordViolation(tx, fact);
  }
  recordGracePeriod(tx: Queryable, fact: StatusFact): Promise<void> {
    return this.status.recordGracePeriod(tx, fact);
  }
  recordLicense(tx: Queryable, fact: LicenseFact): Promise<void> {
    return this.status.recordLicense(tx, fact);
  }
  recordLicenseRequest(tx: Queryable, fact: StatusFact): Promise<void> {
    return this.status.recordLicenseRequest(tx, fact);
  }
  recordUsage(tx: Queryable, fact: UsageFact): Promise<void> {
    return this.revenue.recordUsage(tx, fact);
  }
  recordFee(tx: Queryable, fact: FeeFact): Promise<void> {
    return this.revenue.recordFee(tx, fact);
  }

  async summaries(q: Queryable, boxIds: string[], period: string): Promise<Map<string, BoxStatsSummary>> {
    const out = new Map<string, BoxStatsSummary>();
    if (boxIds.length === 0) return out;
    const rows = await db(q)
      .selectFrom(sql<{ boxId: string }>`unnest(${boxIds}::text[])`.as<'ids'>(sql`ids(box_id)`))
      .select((eb) => {
        const violations = () => eb.selectFrom('statsViolations as v').whereRef('v.boxId', '=', 'ids.boxId');
        const licenses = () => eb.selectFrom('statsLicenses as l').whereRef('l.boxId', '=', 'ids.boxId');
        const usage = () => eb.selectFrom('statsUsage as u').whereRef('u.boxId', '=', 'ids.boxId');
        const fees = () => eb.selectFrom('statsFees as f').whereRef('f.boxId', '=', 'ids.boxId');
        return [
          'ids.boxId',
          violations().select(count.as('n')).as('totalViolations'),
          violations().select(count.as('n')).where('v.status', '=', 'resolved').as('resolvedViolations'),
          eb
            .selectFrom('statsGracePeriods as g')
            .whereRef('g.boxId', '=', 'ids.boxId')
            .where('g.status', 'in', ['active', 'paused'])
            .select(count.as('n'))
            .as('activeGracePeriods'),
          licenses()
            .where('l.status', '=', 'active')
            .select(sql<number>`count(DISTINCT ${sql.ref('l.licenseePlatformId')})`.as('n'))
            .as('licensedPlatforms'),
          licenses().select(count.as('n')).as('totalLicenses'),
          licenses().where('l.status', '=', 'active').select(count.as('n')).as('activeLicenses'),
          usage()
            .where('u.period', '=', period)
            .select(sumCentsOf('u.totalCents').as('n'))
            .as('monthlyUsage'),
          fees().where('f.period', '=', period).select(sumCentsOf('f.amountCents').as('n')).as('monthlyFees'),
          usage().select(sumCentsOf('u.totalCents').as('n')).as('lifetimeUsage'),
          fees().select(sumCentsOf('f.amountCents').as('n')).as('lifetimeFees'),
        ];
      })
      .execute();
    for (const row of rows) {
      out.set(row.boxId, {
        totalViolations: n(row.totalViolations),
        resolvedViolations: n(row.resolvedViolations),
        activeGracePeriods: n(row.activeGracePeriods),
        licensedPlatforms: n(row.licensedPlatforms),
        totalLicenses: n(row.totalLicenses),
        activeLicenses: n(row.activeLicenses),
        monthlyRevenueCents: cents(row.monthlyUsage) + cents(row.monthlyFees),
        lifetimeRevenueCents: cents(row.lifetimeUsage) + cents(row.lifetimeFees),
      });
    }
    return out;
  }

  async statistics(
    q: Queryable,
    boxId: string,
    period: string,
    bounds: { start: Date; end: Date },
  ): Promise<BoxStatistics> {
    const c = await db(q)
      .selectNoFrom((eb) => {
        const violations = () =>
          eb.selectFrom('statsViolations').where('boxId', '=', boxId).select(count.as('n'));
        const resolvedInPeriod = () =>
          violations()
            .where('status', '=', 'resolved')
            .where('resolvedAt', '>=', bounds.start)
            .where('resolvedAt', '<', bounds.end);
        const grace = (status: string) =>
          eb
            .selectFrom('statsGracePeriods')
            .where('boxId', '=', boxId)
            .where('status', '=', status)
            .select(count.as('n'));
        const licenses = () => eb.selectFrom('statsLicenses').where('boxId', '=', boxId);
        const usage = (column: 'totalCents' | 'subscriptionsCents' | 'messagesCents' | 'tipsCents') =>
          eb.selectFrom('statsUsage').where('boxId', '=', boxId).select(sumCentsOf(column).as('n'));
        const fees = () =>
          eb.selectFrom('statsFees').where('boxId', '=', boxId).select(sumCentsOf('amountCents').as('n'));
        return [
          violations()
            .where('detectedAt', '>=', bounds.start)
            .where('detectedAt', '<', bounds.end)
            .as('violationsDetected'),
          resolvedInPeriod().as('violationsResolved'),
          violations().where('status', '=', 'pending').as('violationsPending'),
          violations().where('status', '=', 'appealed').as('violationsAppealed'),
          eb
            .selectFrom('statsGracePeriods')
            .where('boxId', '=', boxId)
            .where('status', 'in', ['active', 'paused'])
            .select(count.as('n'))
            .as('graceActive'),
          grace('expired').as('graceExpired'),
          grace('resolved').as('graceResolved'),
          licenses().select(count.as('n')).as('licensesTotal'),
          licenses().where('status', '=', 'active').select(count.as('n')).as('licensesActive'),
          licenses().where('status', '=', 'pending').select(count.as('n')).as('licensesPending'),
          eb
            .selectFrom('statsLicenseRequests')
            .where('boxId', '=', boxId)
            .where('status', '=', 'pending')
            .select(count.as('n'))
            .as('requestsPending'),
          licenses().where('status', '=', 'expired').select(count.as('n')).as('licensesExpired'),
          licenses()
            .where('status', '=', 'active')
            .select(sql<number>`count(DISTINCT ${sql.ref('licenseePlatformId')})`.as('n'))
            .as('platformsLicensed'),
          usage('totalCents').where('period', '=', period).as('usageMonthly'),
          usage('totalCents').as('usageLifetime'),
          usage('subscriptionsCents').where('period', '=', period).as('subscriptions'),
          usage('messagesCents').where('period', '=', period).as('messages'),
          usage('tipsCents').where('period', '=', period).as('tips'),
          fees().where('period', '=', period).as('feesMonthly'),
          fees().as('feesLifetime'),
        ];
      })
      .executeTakeFirstOrThrow();
    const resolutions = await resolvedBy(q, boxId, bounds, 'resolution');
    const resolvers = await resolvedBy(q, boxId, bounds, 'resolvedBy');
    // A platform's revenue is what it reported plus the license fees it was billed for the period
    // (its name from its usage reports, else from its license).
    const reported = db(q)
      .selectFrom('statsUsage')
      .select(['licenseePlatformId', 'licenseePlatformName as name', 'totalCents as cents', 'users'])
      .where('boxId', '=', boxId)
      .where('period', '=', period);
    const billed = db(q)
      .selectFrom('statsFees as f')
      .leftJoin('statsLicenses as l', 'l.licenseId', 'f.licenseId')
      .select([
        'f.licenseePlatformId',
        'l.licenseePlatformName as name',
        'f.amountCents as cents',
        sql<number>`0`.as('users'),
      ])
      .where('f.boxId', '=', boxId)
      .where('f.period', '=', period)
      .where('f.amountCents', '>', 0);
    const name = sql<string>`COALESCE(max(${sql.ref('name')}), ${sql.ref('licenseePlatformId')})`;
    const top = await db(q)
      .selectFrom(billed.unionAll(reported).as('revenue'))
      .select([name.as('name'), sumCentsOf('cents').as('revenueCents'), sumOf('users').as('users')])
      .groupBy('licenseePlatformId')
      .orderBy(sql`sum(${sql.ref('cents')})`, 'desc')
      .orderBy(name)
      .limit(5)
      .execute();
    return {
      boxId,
      period,
      violations: {
        detected: n(c.violationsDetected),
        resolved: n(c.violationsResolved),
        pending: n(c.violationsPending),
        appealed: n(c.violationsAppealed),
        resolutions: {
          licensed: n(resolutions.get('licensed')),
          removed: n(resolutions.get('removed')),
          modified: n(resolutions.get('modified')),
          parody: n(resolutions.get('parody')),
        },
        resolvedBy: {
          platform: n(resolvers.get('platform')),
          license: n(resolvers.get('license')),
          avatarChange: n(resolvers.get('avatar_change')),
        },
      },
      gracePeriods: { active: n(c.graceActive), expired: n(c.graceExpired), resolved: n(c.graceResolved) },
      licenses: {
        total: n(c.licensesTotal),
        active: n(c.licensesActive),
        pending: n(c.licensesPending) + n(c.requestsPending),
        expired: n(c.licensesExpired),
      },
      revenueCents: {
        monthly: cents(c.usageMonthly) + cents(c.feesMonthly),
        lifetime: cents(c.usageLifetime) + cents(c.feesLifetime),
        byType: {
          subscriptions: cents(c.subscriptions),
          messages: cents(c.messages),
          tips: cents(c.tips),
          fees: cents(c.feesMonthly),
        },
      },
      platforms: {
        licensed: n(c.platformsLicensed),
        topPlatforms: top.map((p) => ({ ...p, revenueCents: cents(p.revenueCents) })),
      },
    };
  }
}
