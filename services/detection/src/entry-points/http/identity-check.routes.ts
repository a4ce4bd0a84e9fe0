import type { Request, Router } from 'express';
import {
  AVATAR_EVALUATION_PATH,
  avatarEvaluationRequestSchema,
  BOX_MATCH_KEYS_PATH,
  detectionOperations as ops,
  identityBatchBodySchema,
  identityCheckBodySchema,
  MAX_BATCH_IDENTITIES,
  secondFamilyBatchBodySchema,
  secondFamilyCheckBodySchema,
} from '@svc/contracts/detection';
import { AppError, errors } from '@svc/errors';
import { authOf, parseBody, parseParams, respond } from '@svc/service-kit';
import { z } from 'zod';
import { checkIdentities, checkIdentity } from '../../domain/check-identity.use-case';
import { boxMatchKeys, evaluateAvatars } from '../../domain/evaluate-avatars.use-case';
import { identityStatus } from '../../domain/identity-status.use-case';
import type { Caller, DetectionContext } from '../../domain/ports';
import {
  batchItemForm,
  checkResultForm,
  identityStatusForm,
  secondFamilyBatchItemForm,
  secondFamilyCheckForm,
} from './check.presenter';

function callerOf(req: Request): Caller {
  const claims = authOf(req);
  return { platformId: claims.platformId, platformDomain: claims.platformDomain };
}

/** BATCH_TOO_LARGE before anything else is read: a 10,000-item batch is refused at once. */
function refuseLargeBatch(req: Request): void {
  const identities = (req.body as { identities?: unknown } | undefined)?.identities;
  if (Array.isArray(identities) && identities.length > MAX_BATCH_IDENTITIES) {
    throw new AppError('BATCH_TOO_LARGE', `A batch holds at most ${MAX_BATCH_IDENTITIES} identities`, {
      details: { limit: MAX_BATCH_IDENTITIES, received: identities.length },
    });
  }
}

const elapsedSince = (start: number): number => Math.round(performance.now() - start);

/** The identity check in both families, and enforcement's avatar evaluation. */
export function identityCheckRoutes(router: Router, ctx: DetectionContext): void {
  // A partial index would answer ALLOW for protected names: nothing is checked until it is loaded.
  router.use((_req, _res, next) => {
    next(ctx.indexReady() ? undefined : errors.unavailable('the identity index is loading', 5));
  });
  router.post(ops.checkIdentity.path, async (req, res) => {
    const body = parseBody(identityCheckBodySchema, req);
    const outcome = await checkIdentity(ctx, callerOf(req), body);
    respond(res, ops.checkIdentity, 200, checkResultForm(outcome));
  });

  router.post(ops.checkIdentityBatch.path, async (req, res) => {
    const started = performance.now();
    refuseLargeBatch(req);
    const { identities } = parseBody(identityBatchBodySchema, req);
    const outcomes = await checkIdentities(ctx, callerOf(req), identities);
    const results = outcomes.map((outcome, i) => batchItemForm(outcome, identities[i] ?? { name: '' }));
    const boxed = results.filter((r) => r.isBoxed).length;
    respond(res, ops.checkIdentityBatch, 200, {
      results,
      meta: {
        total: results.length,
        boxed,
        unprotected: results.length - boxed,
        processingTime: elapsedSince(started),
      },
    });
  });

  router.post(ops.secondFamilyCheckIdentity.path, async (req, res) => {
    const body = parseBody(secondFamilyCheckBodySchema, req);
    const outcome = await checkIdentity(ctx, callerOf(req), { name: body.name, imageUrl: body.image_url });
    respond(res, ops.secondFamilyCheckIdentity, 200, secondFamilyCheckForm(outcome));
  });

  router.post(ops.secondFamilyCheckIdentityBatch.path, async (req, res) => {
    const started = performance.now();
    refuseLargeBatch(req);
    const { identities } = parseBody(secondFamilyBatchBodySchema, req);
    const outcomes = await checkIdentities(
      ctx,
      callerOf(req),
      identities.map((item) => ({ name: item.name, imageUrl: item.image_url })),
      { name: 'name', imageUrl: 'image_url' },
    );
    const results = outcomes.map((outcome, i) => secondFamilyBatchItemForm(outcome, identities[i] ?? {}));
    const count = (status: string) => results.filter((r) => r.status === status).length;
    respond(res, ops.secondFamilyCheckIdentityBatch, 200, {
      results,
      meta: {
        total: results.length,
        boxed: count('BOXED'),
        claimed: count('CLAIMED'),
        unclaimed: count('UNCLAIMED'),
        processing_time: elapsedSince(started),
      },
    });
  });

  router.get(ops.identityStatus.path, (req, res) => {
    const { id } = parseParams(z.object({ id: z.string().min(1).max(100) }), req);
    respond(res, ops.identityStatus, 200, identityStatusForm(identityStatus(ctx, id)));
  });

  // Internal: enforcement's question. Not a public operation (the gateway never routes here).
  router.post(AVATAR_EVALUATION_PATH, async (req, res) => {
    const body = parseBody(avatarEvaluationRequestSchema, req);
    // eslint-disable-next-line no-restricted-syntax -- internal, not a public operation: its caller parses the answer with the contract's schema
    res.json(await evaluateAvatars(ctx, body.avatars, body.boxId));
  });

  // Internal: the match keys of a box's identity, before its initial scan (enforcement's question).
  router.get(BOX_MATCH_KEYS_PATH, async (req, res) => {
    const { boxId } = parseParams(z.object({ boxId: z.string().min(1).max(100) }), req);
    // eslint-disable-next-line no-restricted-syntax -- internal, not a public operation: its caller parses the answer with the contract's schema
    res.json(await boxMatchKeys(ctx, boxId));
  });
}
