import { jsonb, kyselyOn, type Queryable } from '@svc/storage';
import type { UsageReportStore } from '../domain/ports';
import type { UsageReport } from '../domain/usage-report';
import type { DB } from './db.generated';

const db = (q: Queryable) => kyselyOn<DB>(q);

/** Usage reports, every version kept (SQL lives here). */
export class UsageReportRepository implements UsageReportStore {
  async current(q: Queryable, licenseId: string, period: string): Promise<UsageReport | null> {
    const row = await db(q)
      .selectFrom('usageReports')
      // Cents are read as text: exact past 2^53, where an int8 read as a number is not.
      .select((eb) => [
        'id',
        'licenseId',
        'period',
        'version',
        'licenseePlatformId',
        'metrics',
        'revenueCents',
        eb.cast<string>('totalRevenueCents', 'text').as('totalRevenueCents'),
        'royaltyRate',
        eb.cast<string>('royaltyDueCents', 'text').as('royaltyDueCents'),
        'currency',
        'dueDate',
        'reportedAt',
      ])
      .where('licenseId', '=', licenseId)
      .where('period', '=', period)
      .orderBy('version', 'desc')
      .limit(1)
      .executeTakeFirst();
    if (row === undefined) return null;
    // The one mapping left: cents are bigints in the domain, decimal strings in the row and the jsonb.
    return {
      ...row,
      revenueCents: Object.fromEntries(Object.entries(row.revenueCents).map(([k, v]) => [k, BigInt(v)])),
      totalRevenueCents: BigInt(row.totalRevenueCents),
      royaltyDueCents: BigInt(row.royaltyDueCents),
    };
  }

  async insert(tx: Queryable, r: UsageReport): Promise<void> {
    await db(tx)
      .insertInto('usageReports')
      .values({
        id: r.id,
        licenseId: r.licenseId,
        period: r.period,
        version: r.version,
        licenseePlatformId: r.licenseePlatformId,
        metrics: jsonb(r.metrics),
        // Cents by revenue type as strings: exact in JSON.
        revenueCents: jsonb(
          Object.fromEntries(Object.entries(r.revenueCents).map(([k, v]) => [k, v.toString()])),
        ),
        totalRevenueCents: r.totalRevenueCents.toString(),
        royaltyRate: r.royaltyRate,
        royaltyDueCents: r.royaltyDueCents.toString(),
        currency: r.currency,
        dueDate: r.dueDate,
        reportedAt: r.reportedAt,
      })
      .execute();
  }

  async supersede(tx: Queryable, id: string, at: Date): Promise<void> {
    await db(tx).updateTable('usageReports').set({ supersededAt: at }).where('id', '=', id).execute();
  }
}
