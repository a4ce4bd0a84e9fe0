import type { Router } from 'express';
import { idParamSchema } from '@svc/contracts/common';
import {
  addImageBodySchema,
  addVariationBodySchema,
  createClaimBodySchema,
  listClaimsQuerySchema,
  registryOperations as ops,
  updateClaimBodySchema,
} from '@svc/contracts/registry';
import { parseBody, parseParams, parseQuery, respond } from '@svc/service-kit';
import { createClaim } from '../../domain/create-claim.use-case';
import { deleteClaim } from '../../domain/delete-claim.use-case';
import type { RegistryContext } from '../../domain/ports';
import { getClaim, listClaims } from '../../domain/query-claims.use-case';
import { addClaimImage, addClaimVariation, updateClaim } from '../../domain/update-claim.use-case';
import { callerOf } from './caller';
import { claimDetail, claimListItem } from './claim.presenter';

/** `/v1/svc/claims` (docs/spec/service-interface.md, Endpoints: Claims). */
export function claimRoutes(router: Router, ctx: RegistryContext): void {
  router.get(ops.listClaims.path, async (req, res) => {
    const query = parseQuery(listClaimsQuerySchema, req);
    const { items, total } = await listClaims(ctx, callerOf(req), query);
    respond(res, ops.listClaims, 200, {
      data: items.map(claimListItem),
      meta: { total, limit: query.limit, offset: query.offset },
    });
  });

  router.get(ops.getClaim.path, async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    const { claim, isOwner } = await getClaim(ctx, callerOf(req), id);
    respond(res, ops.getClaim, 200, { data: claimDetail(claim, { isOwner }) });
  });

  router.post(ops.createClaim.path, async (req, res) => {
    const body = parseBody(createClaimBodySchema, req);
    const { claim, nextStep } = await createClaim(ctx, callerOf(req), body);
    respond(res, ops.createClaim, 201, { data: { ...claimDetail(claim, { isOwner: true }), nextStep } });
  });

  router.patch(ops.updateClaim.path, async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    const body = parseBody(updateClaimBodySchema, req);
    const claim = await updateClaim(ctx, callerOf(req), id, body);
    respond(res, ops.updateClaim, 200, { data: claimDetail(claim, { isOwner: true }) });
  });

  router.delete(ops.deleteClaim.path, async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    const deleted = await deleteClaim(ctx, callerOf(req), id);
    respond(res, ops.deleteClaim, 200, { data: { ...deleted, deletedAt: deleted.deletedAt.toISOString() } });
  });

  router.post(ops.addClaimVariation.path, async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    const { variation } = parseBody(addVariationBodySchema, req);
    const claim = await addClaimVariation(ctx, callerOf(req), id, variation);
    respond(res, ops.addClaimVariation, 200, { data: claimDetail(claim, { isOwner: true }) });
  });

  router.post(ops.addClaimImage.path, async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    const image = parseBody(addImageBodySchema, req);
    const claim = await addClaimImage(ctx, callerOf(req), id, image);
    respond(res, ops.addClaimImage, 200, { data: claimDetail(claim, { isOwner: true }) });
  });
}
