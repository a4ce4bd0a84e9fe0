import { FEE_BASIS } from '@svc/contracts/common';
import { amountOf } from '@svc/money';
import type { Balance } from '../../domain/query-balance.use-case';
import type { UsageReport } from '../../domain/usage-report';

/** The usage report result (docs/spec/service-interface.md, Resources). */
export function usageReportResult(report: UsageReport) {
  return {
    id: report.id,
    licenseId: report.licenseId,
    period: report.period,
    version: report.version,
    totalRevenue: amountOf(report.totalRevenueCents),
    royaltyRate: Number(report.royaltyRate),
    royaltyDue: amountOf(report.royaltyDueCents),
    paymentStatus: 'pending' as const,
    dueDate: report.dueDate.toISOString(),
  };
}

/** `POST /revenue/report` (docs/spec/contracts.md §12). */
export function revenueReportResult(report: UsageReport) {
  return {
    license_id: report.licenseId,
    period: report.period,
    version: report.version,
    total_revenue: amountOf(report.totalRevenueCents),
    royalty_due: amountOf(report.royaltyDueCents),
    payment_status: 'pending' as const,
    due_date: report.dueDate.toISOString(),
  };
}

/** `GET /revenue/balance` (docs/spec/contracts.md §12). */
export function revenueBalance(balance: Balance) {
  return {
    currency: balance.currency,
    balance: amountOf(balance.payableCents),
    receivable: amountOf(balance.receivableCents),
    // What the balance is made of: license fees (billed per FEE_BASIS) and royalties.
    fee_basis: FEE_BASIS,
    breakdown: {
      fees: {
        balance: amountOf(balance.payableFeesCents),
        receivable: amountOf(balance.receivableFeesCents),
      },
      royalties: {
        balance: amountOf(balance.payableCents - balance.payableFeesCents),
        receivable: amountOf(balance.receivableCents - balance.receivableFeesCents),
      },
    },
    pending_payouts: balance.pendingPayouts.map((payout) => ({
      kind: payout.charge,
      license_id: payout.licenseId,
      period: payout.period,
      amount: amountOf(payout.amountCents),
      due_date: payout.dueDate.toISOString(),
      recipient: payout.recipient,
    })),
    ...(balance.byCurrency.length > 1
      ? {
          by_currency: balance.byCurrency.map((totals) => ({
            currency: totals.currency,
            balance: amountOf(totals.payableCents),
            receivable: amountOf(totals.receivableCents),
          })),
        }
      : {}),
  };
}
