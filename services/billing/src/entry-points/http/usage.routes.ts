import type { Router } from 'express';
import { billingOperations as ops, reportUsageBodySchema } from '@svc/contracts/billing';
import { idParamSchema } from '@svc/contracts/common';
import { parseBody, parseParams, respond } from '@svc/service-kit';
import type { BillingContext } from '../../domain/ports';
import { reportUsage } from '../../domain/report-usage.use-case';
import { callerOf } from './caller';
import { usageReportResult } from './usage.presenter';

/** `POST /v1/svc/licenses/{id}/usage` (docs/spec/service-interface.md, Endpoints: Licenses). */
export function usageRoutes(router: Router, ctx: BillingContext): void {
  router.post(ops.reportUsage.path, async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    const body = parseBody(reportUsageBodySchema, req);
    const { report, created } = await reportUsage(ctx, callerOf(req), { licenseId: id, ...body });
    respond(res, ops.reportUsage, created ? 201 : 200, { data: usageReportResult(report) });
  });
}
