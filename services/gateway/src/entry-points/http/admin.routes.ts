import type { Request, Router } from 'express';
import { AppError, errors } from '@svc/errors';
import { idParamSchema } from '@svc/contracts/common';
import {
  changePlanBodySchema,
  createPlatformBodySchema,
  deadLetterQuerySchema,
  issueKeyBodySchema,
  listPlatformsQuerySchema,
  replayDeadLettersBodySchema,
} from '@svc/contracts/gateway';
import { parseBody, parseParams, parseQuery, type ReadinessReport } from '@svc/service-kit';
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
    res.status(201).json({ data: presentPlatform(platform) });
  });

  router.get('/admin/platforms', async (req, res) => {
    const query = parseQuery(listPlatformsQuerySchema, req);
    const page = await ctx.platforms.list(ctx.db, query);
    res.json({
      data: page.items.map(({ platform, kind }) => ({ ...presentPlatform(platform), kind })),
      meta: { total: page.total, limit: query.limit, offset: query.offset },
    });
  });

  router.patch('/admin/platforms/:id', async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    const body = parseBody(changePlanBodySchema, req);
    res.json({ data: presentPlatform(await changePlatformPlan(ctx, { id, ...body })) });
  });

  router.get('/admin/platforms/:id', async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    res.json({ data: await describePlatform(ctx, id) });
  });

  router.post('/admin/platforms/:id/keys', async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    const body = parseBody(issueKeyBodySchema, req);
    const issued = await issueApiKey(ctx, {
      platformId: id,
      environment: body.environment ?? ctx.environment,
    });
    res.status(201).json({ data: presentKey(issued) });
  });

  router.post('/admin/keys/:id/rotate', async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    const rotated = await rotateApiKey(ctx, id);
    res.json({ data: { ...rotated, previousKeyExpiresAt: rotated.previousKeyExpiresAt.toISOString() } });
  });

  router.post('/admin/keys/:id/revoke', async (req, res) => {
    const { id } = parseParams(idParamSchema, req);
    res.json({ data: await revokeApiKey(ctx, id) });
  });

  router.get('/admin/dead-letters', async (req, res) => {
    const query = parseQuery(deadLetterQuerySchema, req);
    res.json(await listDeadLetters(ctx, { ...query, requestId: currentRequestId() ?? '' }));
  });

  router.post('/admin/dead-letters/replay', async (req, res) => {
    const body = parseBody(replayDeadLettersBodySchema, req);
    res.json(await replayDeadLetters(ctx, { ...body, requestId: currentRequestId() ?? '' }));
  });

  router.get('/admin/health', async (_req, res) => {
    res.json(await systemHealth(ctx, { readiness, requestId: currentRequestId() ?? '' }));
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
