import type { Router } from 'express';
import { idParamSchema } from '@svc/contracts/common';
import {
  cancelLicenseBodySchema,
  licensingOperations as ops,
  listLicensesQuerySchema,
  renewLicenseBodySchema,
  requestLicenseBodySchema,
  revokeLicenseBodySchema,
} from '@svc/contracts/licensing';
import { parseBody, parseParams, parseQuery, respond } from '@svc/service-kit';
import { cancelLicense } from '../../domain/cancel-license.use-case';
import type { LicensingContext } from '../../domain/ports';
import { getLicense, getOwnLicenseRequest, listLicenses } from '../../domain/query-licenses.use-case';
import { renewLicense } from '../../domain/renew-license.use-case';
import { requestLicense } from '../../domain/request-license.use-case';
import { revokeLicense } from '../../domain/revoke-license.use-case';
import { callerOf } from './caller';
import {
  createdRequestForm,
  licenseDetail,
  licenseListItem,
  renewedForm,
  requestForm,
} from './license.presenter';

/** `/v1/svc/licenses` (docs/spec/service-interface.md, Endpoints: Licenses; `/usage` is billing's). */
export function licenseRoutes(router: Router, ctx: LicensingContext): void {
  router.get(ops.listLicenses.path, async (req, res) => {
    const query = parseQuery(listLicensesQuerySchema, req);
    const { items, total } = await listLicenses(ctx, callerOf(req), query);
    respond(res, ops.listLicenses, 200, {
      data: items.map(licenseListItem),
      meta: { total, limit: query.limit, offset: query.offset },
    });
  });

  // Before /licenses/:id, so that "request" is never taken for an id.
  router.post(ops.requestLicense.path, async (req, res) => {
    const body = parseBody(requestLicenseBodySchema, req);
    const { request } = await requestLicense(ctx, callerOf(req), body);
    respond(res, ops.requestLicense, 201, { data: createdRequestForm(request) });
  });

  router.get(ops.getLicenseRequest.path, async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    const { request, license } = await getOwnLicenseRequest(ctx, callerOf(req), id);
    respond(res, ops.getLicenseRequest, 200, { data: requestForm(request, license) });
  });

  router.get(ops.getLicense.path, async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    const { license, period, usage } = await getLicense(ctx, callerOf(req), id);
    respond(res, ops.getLicense, 200, { data: licenseDetail(license, period, usage) });
  });

  router.post(ops.renewLicense.path, async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    const body = parseBody(renewLicenseBodySchema, req);
    const renewed = await renewLicense(ctx, callerOf(req), id, body);
    // An upgrade waiting for the owner's review is accepted (202), not done.
    respond(res, ops.renewLicense, renewed.pendingUpgrade === null ? 200 : 202, {
      data: renewedForm(renewed),
    });
  });

  router.delete(ops.cancelLicense.path, async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    // The body is optional: no body is an immediate cancellation without a reason.
    if (req.body === undefined) req.body = {};
    const body = parseBody(cancelLicenseBodySchema, req);
    const { license, effectiveDate, effectiveAt } = await cancelLicense(ctx, callerOf(req), id, body);
    respond(res, ops.cancelLicense, 200, {
      data: {
        id: license.id,
        status: license.status,
        effectiveDate,
        ...(effectiveDate === 'immediate'
          ? { cancelledAt: effectiveAt.toISOString() }
          : { cancelsAt: effectiveAt.toISOString() }),
      },
    });
  });

  router.post(ops.revokeLicense.path, async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    if (req.body === undefined) req.body = {};
    const { reason } = parseBody(revokeLicenseBodySchema, req);
    const license = await revokeLicense(ctx, callerOf(req), id, reason ?? null);
    respond(res, ops.revokeLicense, 200, {
      data: {
        id: license.id,
        status: 'revoked',
        reason: reason ?? null,
        revokedAt: (license.endedAt ?? ctx.clock.now()).toISOString(),
      },
    });
  });
}
