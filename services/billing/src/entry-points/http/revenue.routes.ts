import type { Router } from 'express';
import { billingOperations as ops, revenueReportBodySchema } from '@svc/contracts/billing';
import { parseBody, respond } from '@svc/service-kit';
import type { BillingContext } from '../../domain/ports';
import { getBalance } from '../../domain/query-balance.use-case';
import { reportUsage } from '../../domain/report-usage.use-case';
import { callerOf } from './caller';
import { revenueBalance, revenueReportResult } from './usage.presenter';

/** The second family's revenue paths (docs/spec/contracts.md §12), translated onto the same usage report. */
export function revenueRoutes(router: Router, ctx: BillingContext): void {
  router.post(ops.secondFamilyReportRevenue.path, async (req, res) => {
    const body = parseBody(revenueReportBodySchema, req);
    const { report, created } = await reportUsage(ctx, callerOf(req), {
      licenseId: body.license_id,
      period: body.period,
      // interactions are messages, unique users are subscribers; the revenue has no type: other.
      metrics: { messages: body.metrics.interactions, subscribers: body.metrics.unique_users },
      revenue: { other: body.metrics.revenue_generated },
    });
    respond(res, ops.secondFamilyReportRevenue, created ? 201 : 200, revenueReportResult(report));
  });

  router.get(ops.secondFamilyRevenueBalance.path, async (req, res) => {
    respond(res, ops.secondFamilyRevenueBalance, 200, revenueBalance(await getBalance(ctx, callerOf(req))));
  });
}
