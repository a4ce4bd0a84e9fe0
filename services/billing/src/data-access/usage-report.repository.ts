import type { Queryable } from '@svc/storage';
import type { UsageReportStore } from '../domain/ports';
import type { UsageReport } from '../domain/usage-report';

interface ReportRow {
  id: string;
  license_id: string;
  period: string;
  version: number;
  licensee_platform_id: string;
  metrics: Record<string, number>;
  revenue_cents: Record<string, string>;
  total_revenue_cents: string;
  royalty_rate: string;
  royalty_due_cents: string;
  currency: string;
  due_date: Date | string;
  reported_at: Date | string;
}

function reportOf(row: ReportRow): UsageReport {
  return {
    id: row.id,
    licenseId: row.license_id,
    period: row.period,
    version: row.version,
    licenseePlatformId: row.licensee_platform_id,
    metrics: row.metrics,
    revenueCents: Object.fromEntries(Object.entries(row.revenue_cents).map(([k, v]) => [k, BigInt(v)])),
    totalRevenueCents: BigInt(row.total_revenue_cents),
    royaltyRate: row.royalty_rate,
    royaltyDueCents: BigInt(row.royalty_due_cents),
    currency: row.currency,
    dueDate: new Date(row.due_date),
    reportedAt: new Date(row.reported_at),
  };
}

/** Usage reports, every version kept (SQL lives here). */
export class UsageReportRepository implements UsageReportStore {
  async current(q: Queryable, licenseId: string, period: string): Promise<UsageReport | null> {
    const { rows } = await q.query<ReportRow>(
      `SELECT id, license_id, period, version, licensee_platform_id, metrics, revenue_cents,
         total_revenue_cents::text AS total_revenue_cents, royalty_rate,
         royalty_due_cents::text AS royalty_due_cents, currency, due_date, reported_at
       FROM usage_reports WHERE license_id = $1 AND period = $2 ORDER BY version DESC LIMIT 1`,
      [licenseId, period],
    );
    const row = rows[0];
    return row === undefined ? null : reportOf(row);
  }

  async insert(tx: Queryable, r: UsageReport): Promise<void> {
    await tx.query(
      `INSERT INTO usage_reports (id, license_id, period, version, licensee_platform_id, metrics, revenue_cents,
         total_revenue_cents, royalty_rate, royalty_due_cents, currency, due_date, reported_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13)`,
      [
        r.id,
        r.licenseId,
        r.period,
        r.version,
        r.licenseePlatformId,
        JSON.stringify(r.metrics),
        JSON.stringify(Object.fromEntries(Object.entries(r.revenueCents).map(([k, v]) => [k, v.toString()]))),
        r.totalRevenueCents.toString(),
        r.royaltyRate,
        r.royaltyDueCents.toString(),
        r.currency,
        r.dueDate.toISOString(),
        r.reportedAt.toISOString(),
      ],
    );
  }

  async supersede(tx: Queryable, id: string, at: Date): Promise<void> {
    await tx.query('UPDATE usage_reports SET superseded_at = $2 WHERE id = $1', [id, at.toISOString()]);
  }
}
