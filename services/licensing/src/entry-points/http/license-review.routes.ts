import type { Request, Response, Router } from 'express';
import { idParamSchema } from '@svc/contracts/common';
import {
  approveLicenseRequestBodySchema,
  denyLicenseRequestBodySchema,
  licensingOperations as ops,
  listBoxLicenseRequestsQuerySchema,
} from '@svc/contracts/licensing';
import { parseBody, parseParams, parseQuery, respond } from '@svc/service-kit';
import type { LicensingContext } from '../../domain/ports';
import { listBoxLicenseRequests } from '../../domain/query-licenses.use-case';
import {
  approveLicenseRequest,
  denyLicenseRequest,
  type Reviewer,
} from '../../domain/review-license-request.use-case';
import { callerOf } from './caller';
import { boxRequestForm, requestForm } from './license.presenter';
import { centsOf } from '@svc/money';

/** Review by the box owner (docs/spec/contracts.md §8) and the sandbox test helpers (§9). */
export function licenseReviewRoutes(router: Router, ctx: LicensingContext): void {
  router.get(ops.listBoxLicenseRequests.path, async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    const query = parseQuery(listBoxLicenseRequestsQuerySchema, req);
    const { items, total } = await listBoxLicenseRequests(ctx, callerOf(req), id, query);
    respond(res, ops.listBoxLicenseRequests, 200, {
      data: items.map(boxRequestForm),
      meta: { total, limit: query.limit, offset: query.offset },
    });
  });

  const approve = (reviewer: Reviewer) => async (req: Request, res: Response) => {
    const { id } = parseParams(idParamSchema, req);
    if (req.body === undefined) req.body = {};
    const { monthlyFee } = parseBody(approveLicenseRequestBodySchema, req);
    const { request, license } = await approveLicenseRequest(ctx, callerOf(req), id, reviewer, {
      monthlyFeeCents: monthlyFee === undefined ? undefined : centsOf(monthlyFee, 'monthlyFee'),
    });
    respond(res, ops.approveLicenseRequest, 200, { data: requestForm(request, license) });
  };
  const deny = (reviewer: Reviewer) => async (req: Request, res: Response) => {
    const { id } = parseParams(idParamSchema, req);
    const { reason } = parseBody(denyLicenseRequestBodySchema, req);
    const request = await denyLicenseRequest(ctx, callerOf(req), id, reason, reviewer);
    respond(res, ops.denyLicenseRequest, 200, { data: requestForm(request, null) });
  };

  router.post(ops.approveLicenseRequest.path, approve('box_owner'));
  router.post(ops.denyLicenseRequest.path, deny('box_owner'));
  router.post(ops.testHelperApproveLicenseRequest.path, approve('test_helper'));
  router.post(ops.testHelperDenyLicenseRequest.path, deny('test_helper'));
}
