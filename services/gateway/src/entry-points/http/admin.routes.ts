import type { Request, Router } from 'express';
import { AppError, errors } from '@svc/errors';
import { idParamSchema } from '@svc/contracts/common';
import {
  adminOperations,
  changePlanBodySchema,
  createPlatformBodySchema,
  deadLetterQuerySchema,
  issueKeyBodySchema,
  listPlatformsQuerySchema,
  replayDeadLettersBodySchema,
} from '@svc/contracts/gateway';
import { parseBody, parseParams, parseQuery, type ReadinessReport, respond } from '@svc/service-kit';
import { bearerToken, sameSecret } from '../../domain/api-key';
import { authenticateSession } from '../../domain/authenticate-session.use-case';
import type { GatewayContext } from '../../domain/gateway-context';
import { changePlatformPlan } from '../../domain/change-platform-plan.use-case';
import { createPlatform } from '../../domain/create-platform.use-case';
import { listDeadLetters, replayDeadLetters } from '../../domain/dead-letters.use-case';
import { dispatchOperatorRequest } from '../../domain/dispatch-request.use-case';
import { systemHealth } from '../../domain/health.use-case';
import { currentRequestId } from '@svc/logger';
import { issueApiKey, revokeApiKey, rotateApiKey } from '../../domain/issue-api-key.use-case';
import { describePlatform, presentKey, presentPlatform } from './presenters';
import { sessionCredentials } from './session-cookie';

async function requireOperator(ctx: GatewayContext, req: Request): Promise<void> {
  // The dashboard's operator pages: the operator's session stands in for the token (ADR 0024).
  const credentials = sessionCredentials(req);
  if (req.header('authorization') === undefined && credentials.token !== undefined) {
    const session = await authenticateSession(ctx, credentials);
    if (session.account.role !== 'operator') throw errors.forbidden('The operator API is for the operator');
    return;
  }
  const token = bearerToken(req.header('authorization'));
  if (ctx.adminToken === undefined) {
    throw new AppError('UNAUTHORIZED', 'The operator API is disabled: ADMIN_TOKEN is not set', {
      details: 'Set ADMIN_TOKEN on the gateway.',
    });
  }
  if (token === null || !sameSecret(token, ctx.adminToken)) {
    throw new AppError('UNAUTHORIZED', 'Invalid operator token', {
      details: 'Send Authorization: Bearer <ADMIN_TOKEN>.',
    });
  }
}

/**
 * The operator API: platforms and keys (docs/spec/contracts.md §3), dead letters and health of
 * every service. `readiness` is the gateway's own `/readyz`, as data.
 */
export function adminRoutes(
  router: Router,
  ctx: GatewayContext,
  readiness: () => Promise<ReadinessReport>,
): void {
  router.use('/admin', async (req, _res, next) => {
    await requireOperator(ctx, req);
    // Path parameters are checked by the route table before express decodes them for a handler.
    const path = req.originalUrl.split('?')[0] ?? '';
    const problem = ctx.routes.match(req.method, path)?.problem;
    if (problem !== undefined) throw problem;
    next();
  });

  router.post('/admin/platforms', async (req, res) => {
    const body = parseBody(createPlatformBodySchema, req);
    const platform = await createPlatform(ctx, body);
    respond(res, adminOperations.createPlatform, 201, { data: presentPlatform(platform) });
  });

  router.get('/admin/platforms', async (req, res) => {
    const query = parseQuery(listPlatformsQuerySchema, req);
    const page = await ctx.platforms.list(ctx.db, query);
    respond(res, adminOperations.listPlatforms, 200, {
      data: page.items.map(({ platform, kind }) => ({ ...presentPlatform(platform), kind })),
      meta: { total: page.total, limit: query.limit, offset: query.offset },
    });
  });

  router.patch('/admin/platforms/:id', async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    const body = parseBody(changePlanBodySchema, req);
    respond(res, adminOperations.changePlatformPlan, 200, {
      data: presentPlatform(await changePlatformPlan(ctx, { id, ...body })),
    });
  });

  router.get('/admin/platforms/:id', async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    respond(res, adminOperations.getPlatform, 200, { data: await describePlatform(ctx, id) });
  });

  router.post('/admin/platforms/:id/keys', async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    const body = parseBody(issueKeyBodySchema, req);
    const issued = await issueApiKey(ctx, {
      platformId: id,
      environment: body.environment ?? ctx.environment,
      name: body.name,
      scope: body.scope,
    });
    respond(res, adminOperations.issueKey, 201, { data: presentKey(issued) });
  });

  router.post('/admin/keys/:id/rotate', async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    const rotated = await rotateApiKey(ctx, id);
    respond(res, adminOperations.rotateKey, 200, {
      data: { ...rotated, previousKeyExpiresAt: rotated.previousKeyExpiresAt.toISOString() },
    });
  });

  router.post('/admin/keys/:id/revoke', async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    respond(res, adminOperations.revokeKey, 200, { data: await revokeApiKey(ctx, id) });
  });

  router.get('/admin/dead-letters', async (req, res) => {
    const query = parseQuery(deadLetterQuerySchema, req);
    respond(
      res,
      adminOperations.listDeadLetters,
      200,
      await listDeadLetters(ctx, { ...query, requestId: currentRequestId() ?? '' }),
    );
  });

  router.post('/admin/dead-letters/replay', async (req, res) => {
    const body = parseBody(replayDeadLettersBodySchema, req);
    respond(
      res,
      adminOperations.replayDeadLetters,
      200,
      await replayDeadLetters(ctx, { ...body, requestId: currentRequestId() ?? '' }),
    );
  });

  router.get('/admin/health', async (_req, res) => {
    respond(
      res,
      adminOperations.health,
      200,
      await systemHealth(ctx, { readiness, requestId: currentRequestId() ?? '' }),
    );
  });

  // Every other operator operation (verify a claim, decide an appeal…) belongs to a service.
  router.all('/admin/*rest', async (req, res) => {
    const result = await dispatchOperatorRequest(ctx, {
      method: req.method,
      path: req.path,
      url: req.originalUrl,
      body: req.body as unknown,
      requestId: currentRequestId() ?? '',
    });
    res.status(result.status).set(result.headers).send(result.body);
  });
}
