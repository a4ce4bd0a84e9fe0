import {
  jsonbText,
  kyselyOn,
  preparedStatement,
  type Insertable,
  type Kysely,
  type Queryable,
} from '@svc/storage';
import type { UsageReportStore } from '../domain/ports';
import type { UsageReport } from '../domain/usage-report';
import type { DB } from './db.generated';

const db = (q: Queryable) => kyselyOn<DB>(q);

// The report path's statements are built and compiled once and run with each report's values:
// building and compiling them per report cost billing about a tenth of its CPU (bench-billing).
const currentReport = preparedStatement(
  'billing_current_report',
  (db: Kysely<DB>, input: { licenseId: string; period: string }) =>
    db
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
      .where('licenseId', '=', input.licenseId)
      .where('period', '=', input.period)
      .orderBy('version', 'desc')
      .limit(1),
);

// The table's own insert types (generated), but its jsonb columns as the JSON text the caller
// serialises: a prepared statement is built from stand-ins, which jsonb(value) would serialise.
type ReportRow = Required<
  Omit<Insertable<DB['usageReports']>, 'seq' | 'supersededAt' | 'metrics' | 'revenueCents'>
> & { metrics: string; revenueCents: string };

const insertReport = preparedStatement('billing_insert_report', (db: Kysely<DB>, input: ReportRow) =>
  db.insertInto('usageReports').values({
    id: input.id,
    licenseId: input.licenseId,
    period: input.period,
    version: input.version,
    licenseePlatformId: input.licenseePlatformId,
    metrics: jsonbText(input.metrics),
    revenueCents: jsonbText(input.revenueCents),
    totalRevenueCents: input.totalRevenueCents,
    royaltyRate: input.royaltyRate,
    royaltyDueCents: input.royaltyDueCents,
    currency: input.currency,
    dueDate: input.dueDate,
    reportedAt: input.reportedAt,
  }),
);

/** Usage reports, every version kept (SQL lives here). */
export class UsageReportRepository implements UsageReportStore {
  async current(q: Queryable, licenseId: string, period: string): Promise<UsageReport | null> {
    const row = (await currentReport(q, { licenseId, period })).rows[0];
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
    await insertReport(tx, {
      id: r.id,
      licenseId: r.licenseId,
      period: r.period,
      version: r.version,
      licenseePlatformId: r.licenseePlatformId,
      metrics: JSON.stringify(r.metrics),
      // Cents by revenue type as strings: exact in JSON.
      revenueCents: JSON.stringify(
        Object.fromEntries(Object.entries(r.revenueCents).map(([k, v]) => [k, v.toString()])),
      ),
      totalRevenueCents: r.totalRevenueCents.toString(),
      royaltyRate: r.royaltyRate,
      royaltyDueCents: r.royaltyDueCents.toString(),
      currency: r.currency,
      dueDate: r.dueDate,
      reportedAt: r.reportedAt,
    });
  }

  async supersede(tx: Queryable, id: string, at: Date): Promise<void> {
    await db(tx).updateTable('usageReports').set({ supersededAt: at }).where('id', '=', id).execute();
  }
}
