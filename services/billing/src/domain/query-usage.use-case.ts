import { centsText } from '@svc/money';
import type { UsageFigures } from '@svc/contracts/billing';
import type { BillingContext } from './ports';
import { usersOf } from './usage-report';

/**
 * A license's usage of one period, as its current report says (billing owns usage: licensing
 * asks here for a license's detail, docs/adr/0016). Zeros when nothing was reported. `messages`
 * is the reported `messages` metric, else `interactions`.
 */
export async function queryUsage(
  ctx: Pick<BillingContext, 'db' | 'reports'>,
  licenseId: string,
  period: string,
): Promise<UsageFigures> {
  const report = await ctx.reports.current(ctx.db, licenseId, period);
  if (report === null) {
    return {
      licenseId,
      period,
      version: 0,
      subscribers: 0,
      messages: 0,
      revenueCents: '0',
      royaltyDueCents: '0',
    };
  }
  return {
    licenseId,
    period,
    version: report.version,
    subscribers: usersOf(report.metrics),
    messages: report.metrics.messages ?? report.metrics.interactions ?? 0,
    revenueCents: centsText(report.totalRevenueCents),
    royaltyDueCents: centsText(report.royaltyDueCents),
  };
}
