import type { Router } from 'express';
import { idParamSchema } from '@svc/contracts/common';
import {
  registryOperations as ops,
  rejectClaimBodySchema,
  reviewClaimsQuerySchema,
  testHelperVerifyClaimBodySchema,
  verifyClaimBodySchema,
} from '@svc/contracts/registry';
import { parseBody, parseParams, parseQuery, respond } from '@svc/service-kit';
import type { RegistryContext } from '../../domain/ports';
import { listClaimsForReview } from '../../domain/query-claims.use-case';
import { rejectClaim } from '../../domain/reject-claim.use-case';
import { verifyClaim, verifyOwnClaimForTesting } from '../../domain/verify-claim.use-case';
import { callerOf } from './caller';
import { claimDetail, reviewClaim } from './claim.presenter';

/** The operator's review queue, verify and reject (docs/spec/contracts.md §3, §8) and the sandbox test helper (§9). */
export function claimVerificationRoutes(router: Router, ctx: RegistryContext): void {
  router.get(ops.listClaimsForReview.path, async (req, res) => {
    const query = parseQuery(reviewClaimsQuerySchema, req);
    const { items, total, conflicts } = await listClaimsForReview(ctx, callerOf(req), query);
    respond(res, ops.listClaimsForReview, 200, {
      data: items.map((claim) => reviewClaim(claim, conflicts.get(claim.id) ?? [])),
      meta: { total, limit: query.limit, offset: query.offset },
    });
  });

  router.post(ops.verifyClaim.path, async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    const body = parseBody(verifyClaimBodySchema, req);
    const claim = await verifyClaim(ctx, callerOf(req), id, body);
    respond(res, ops.verifyClaim, 200, { data: claimDetail(claim, { isOwner: true }) });
  });

  router.post(ops.rejectClaim.path, async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    const { reason } = parseBody(rejectClaimBodySchema, req);
    const claim = await rejectClaim(ctx, callerOf(req), id, reason);
    respond(res, ops.rejectClaim, 200, { data: claimDetail(claim, { isOwner: true }) });
  });

  router.post(ops.testHelperVerifyClaim.path, async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    // `{tier?}`: an empty request is a SILVER verification.
    if (req.body === undefined) req.body = {};
    const body = parseBody(testHelperVerifyClaimBodySchema, req);
    const claim = await verifyOwnClaimForTesting(ctx, callerOf(req), id, body);
    respond(res, ops.testHelperVerifyClaim, 200, { data: claimDetail(claim, { isOwner: true }) });
  });
}
