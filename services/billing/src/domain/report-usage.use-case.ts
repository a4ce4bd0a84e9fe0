import { errors } from '@svc/errors';
import { paymentDue, usageReported } from '@svc/contracts/billing';
import { ensureLicenseProjected } from './apply-license-event.use-case';
import { royaltyCents } from '@svc/money';
import { assertReportable, dueDateOf } from './period';
import { platformNow } from '@svc/clock';
import type { BillingContext, Caller, LedgerEntry } from './ports';
import { revenueByType, revenueCentsOf, totalOf, usersOf, type UsageReport } from './usage-report';

export interface ReportUsageInput {
  licenseId: string;
  period: string;
  metrics: Record<string, number>;
  revenue: Record<string, number>;
}

export interface ReportUsageResult {
  report: UsageReport;
  /** True for the first report of the period (201); false for a correction (200). */
  created: boolean;
}

/**
 * The licensee reports a period's usage and revenue. The royalty accrues in the ledger (a
 * correction adds the difference), and usage.reported and payment.due go out with it.
 */
export async function reportUsage(
  ctx: BillingContext,
  caller: Caller,
  input: ReportUsageInput,
): Promise<ReportUsageResult> {
  const revenueCents = revenueCentsOf(input.revenue);
  const totalRevenueCents = totalOf(revenueCents);
  // A license activated a moment ago may not be projected yet: licensing is asked (ADR 0010).
  await ensureLicenseProjected(ctx, input.licenseId);
  const result = await ctx.db.transaction(async (tx) => {
    const license = await ctx.licenses.find(tx, input.licenseId, { lock: true });
    // Another platform's license is as unknown as a missing one.
    if (license === null || license.licenseePlatformId !== caller.platformId) {
      throw errors.notFound('License', input.licenseId);
    }
    // The licensee's clock: its sandbox time moves with advance-time, as in every service.
    const now = await platformNow(ctx, tx, caller.platformId);
    assertReportable(input.period, license, now);

    const previous = await ctx.reports.current(tx, license.id, input.period);
    const report: UsageReport = {
      id: ctx.newId('usage'),
      licenseId: license.id,
      period: input.period,
      version: (previous?.version ?? 0) + 1,
      licenseePlatformId: caller.platformId,
      metrics: input.metrics,
      revenueCents,
      totalRevenueCents,
      royaltyRate: license.royaltyRate,
      royaltyDueCents: royaltyCents(totalRevenueCents, Number(license.royaltyRate)),
      currency: license.currency,
      dueDate: dueDateOf(input.period),
      reportedAt: now,
    };
    if (previous !== null) await ctx.reports.supersede(tx, previous.id, now);
    await ctx.reports.insert(tx, report);
    const entry: LedgerEntry = {
      id: ctx.newId('led'),
      kind: previous === null ? 'accrual' : 'adjustment',
      charge: 'royalty',
      reportId: report.id,
      licenseId: license.id,
      period: report.period,
      payerPlatformId: license.licenseePlatformId,
      recipientPlatformId: license.boxOwnerPlatformId,
      amountCents: report.royaltyDueCents - (previous?.royaltyDueCents ?? 0n),
      currency: report.currency,
      dueDate: report.dueDate,
      createdAt: now,
    };
    await ctx.ledger.append(tx, entry);

    const meta = { occurredAt: now, platformId: caller.platformId };
    // Both events in one outbox write: the report, and the royalty now due for the period, every
    // version (0 included), which replaces the earlier notice, so the last notice is always true.
    await ctx.outbox(
      tx,
      usageReported.create(
        {
          reportId: report.id,
          licenseId: license.id,
          boxId: license.boxId,
          licenseePlatformId: license.licenseePlatformId,
          licenseePlatformName: license.licenseePlatformName,
          boxOwnerPlatformId: license.boxOwnerPlatformId,
          period: report.period,
          version: report.version,
          metrics: report.metrics,
          users: usersOf(report.metrics),
          revenueCents: revenueByType(revenueCents),
          totalRevenueCents,
          royaltyRate: Number(license.royaltyRate),
          royaltyDueCents: report.royaltyDueCents,
          currency: report.currency,
          dueDate: report.dueDate.toISOString(),
          reportedAt: now.toISOString(),
        },
        meta,
      ),
      paymentDue.create(
        {
          paymentId: entry.id,
          kind: 'royalty',
          version: report.version,
          licenseId: license.id,
          boxId: license.boxId,
          period: report.period,
          amountCents: report.royaltyDueCents,
          currency: report.currency,
          recipient: license.boxOwnerPlatformId,
          payerPlatformId: license.licenseePlatformId,
          dueDate: report.dueDate.toISOString(),
        },
        meta,
      ),
    );
    return { report, created: previous === null };
  });
  ctx.eventsCommitted();
  return result;
}
