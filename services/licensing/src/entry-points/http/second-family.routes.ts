import type { Router } from 'express';
import { idParamSchema } from '@svc/contracts/common';
import {
  identityIdParamSchema,
  licensingOperations as ops,
  secondFamilyRequestBodySchema,
} from '@svc/contracts/licensing';
import { parseBody, parseParams, respond } from '@svc/service-kit';
import type { LicensingContext } from '../../domain/ports';
import { SECOND_FAMILY_TIER } from '../../domain/pricing';
import { boxOfIdentity, getLicensingTerms, getOwnLicenseRequest } from '../../domain/query-licenses.use-case';
import { requestLicense } from '../../domain/request-license.use-case';
import { callerOf } from './caller';
import { secondFamilyRequestForm } from './license.presenter';

/** The second path family (docs/spec/contracts.md §12): snake_case, onto the same flows. */
export function secondFamilyRoutes(router: Router, ctx: LicensingContext): void {
  router.get(ops.getLicensingTerms.path, async (req, res) => {
    const { identity_id } = parseParams(identityIdParamSchema, req);
    respond(res, ops.getLicensingTerms, 200, await getLicensingTerms(ctx, identity_id));
  });

  router.post(ops.secondFamilyRequestLicense.path, async (req, res) => {
    const body = parseBody(secondFamilyRequestBodySchema, req);
    const box = await boxOfIdentity(ctx, body.identity_id);
    // The second family has no tier nor guidelines flag: the creator tier, guidelines accepted by asking.
    const { request } = await requestLicense(ctx, callerOf(req), {
      boxId: box.boxId,
      tier: SECOND_FAMILY_TIER,
      useCase: `${body.use_type}: ${body.platform_description}`,
      message: `Expected usage: ${body.expected_usage}`,
    });
    respond(res, ops.secondFamilyRequestLicense, 201, secondFamilyRequestForm(request));
  });

  router.get(ops.secondFamilyGetLicenseRequest.path, async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    const { request } = await getOwnLicenseRequest(ctx, callerOf(req), id);
    respond(res, ops.secondFamilyGetLicenseRequest, 200, secondFamilyRequestForm(request));
  });
}
