import { existsSync } from 'node:fs';
import path from 'node:path';
import express, { type Request, type Router } from 'express';
import expressStaticGzip from 'express-static-gzip';
import { AppError } from '@svc/errors';
import { idParamSchema } from '@svc/contracts/common';
import {
  dashboardOperations,
  dashboardIssueKeyBodySchema,
  operatorSignInBodySchema,
  signInBodySchema,
  signUpBodySchema,
} from '@svc/contracts/gateway';
import { currentRequestId } from '@svc/logger';
import { parseBody, parseParams, respond } from '@svc/service-kit';
import { isCrossOrigin } from '../../domain/account';
import { readBoxScanProgress } from '../../domain/box-scan-progress.use-case';
import {
  authenticateSession,
  DEFAULT_SESSION_BUDGET,
  endSession,
} from '../../domain/authenticate-session.use-case';
import type { GatewayContext } from '../../domain/gateway-context';
import { issueOwnKey, listOwnKeys, revokeOwnKey, rotateOwnKey } from '../../domain/manage-own-keys.use-case';
import { describePlanUsage, type BudgetUsage } from '../../domain/plan-usage.use-case';
import { signIn } from '../../domain/sign-in.use-case';
import { signInAsOperator } from '../../domain/operator-sign-in.use-case';
import { signUp } from '../../domain/sign-up.use-case';
import { mailClientOf, mailLinksOf } from './account-mail.routes';
import { memberTenant } from '../../domain/members';
import { presentKey, presentKeySummary, presentSession } from './presenters';
import {
  clearSessionCookie,
  deviceToken,
  sessionCredentials,
  setDeviceCookie,
  setSessionCookie,
} from './session-cookie';

// Signing in or up from another site's page is refused too (login CSRF): a browser names the page's origin.
function refuseCrossSite(req: Request): void {
  if (isCrossOrigin(req.header('origin'), req.header('host'))) {
    throw new AppError('FORBIDDEN', 'Cross-site request refused', {
      details: 'Sign in from the dashboard itself.',
    });
  }
}

function presentBudget(budget: BudgetUsage) {
  const window = (w: BudgetUsage['minute']) => ({
    used: w.used,
    limit: w.limit,
    resetAt: w.resetAt.toISOString(),
  });
  return { minute: window(budget.minute), day: window(budget.day) };
}

/** The client's address: the socket's, or behind the proxies TRUST_PROXY names, the one they forwarded. */
function clientOf(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}

/**
 * The dashboard (docs/spec/contracts.md §14, ADR 0024): accounts and sessions, a platform's keys,
 * and the built single-page app under /dashboard. Everything else it shows comes from the public
 * API and the operator API, authenticated by the session cookie.
 */
export function dashboardRoutes(router: Router, ctx: GatewayContext): void {
  const session = (req: Request) => authenticateSession(ctx, sessionCredentials(req));

  router.post('/dashboard/api/accounts', async (req, res) => {
    refuseCrossSite(req);
    const body = parseBody(signUpBodySchema, req);
    // The same answer whether or not the address has an account (#30): the mail says which.
    const links = mailLinksOf(req, ctx);
    respond(res, dashboardOperations.signUp, 202, {
      data: await signUp(ctx, body, { client: mailClientOf(req), links }),
    });
  });

  router.post('/dashboard/api/session', async (req, res) => {
    refuseCrossSite(req);
    const body = parseBody(signInBodySchema, req);
    const started = await signIn(ctx, { ...body, client: clientOf(req), deviceToken: deviceToken(req) });
    setSessionCookie(req, res, started.token, started.expiresAt);
    setDeviceCookie(req, res, started.newDeviceToken);
    respond(res, dashboardOperations.signIn, 200, { data: presentSession(ctx, started) });
  });

  router.post('/dashboard/api/operator-session', async (req, res) => {
    refuseCrossSite(req);
    const body = parseBody(operatorSignInBodySchema, req);
    const started = await signInAsOperator(ctx, {
      ...body,
      client: clientOf(req),
      deviceToken: deviceToken(req),
    });
    setSessionCookie(req, res, started.token, started.expiresAt);
    setDeviceCookie(req, res, started.newDeviceToken);
    respond(res, dashboardOperations.operatorSignIn, 200, { data: presentSession(ctx, started) });
  });

  router.get('/dashboard/api/session', async (req, res) => {
    res.set('Cache-Control', 'no-store');
    respond(res, dashboardOperations.getSession, 200, { data: presentSession(ctx, await session(req)) });
  });

  router.delete('/dashboard/api/session', async (req, res) => {
    await endSession(ctx, await session(req));
    clearSessionCookie(req, res);
    res.status(204).end();
  });

  router.get('/dashboard/api/usage', async (req, res) => {
    const active = await session(req);
    if (active.platform === null) {
      throw new AppError('FORBIDDEN', 'The operator has no plan', { details: 'Sign in as a platform.' });
    }
    const usage = await describePlanUsage(ctx, {
      platform: active.platform,
      sessionId: active.id,
      sessionBudget: ctx.sessionBudget ?? DEFAULT_SESSION_BUDGET,
    });
    res.set('Cache-Control', 'no-store');
    respond(res, dashboardOperations.getPlanUsage, 200, {
      data: {
        plan: usage.plan,
        limits: usage.limits,
        session: presentBudget(usage.session),
        keys: usage.keys.map(({ keyId, ...budget }) => ({ keyId, ...presentBudget(budget) })),
      },
    });
  });

  router.get('/dashboard/api/keys', async (req, res) => {
    const platformId = memberTenant(await session(req), 'read', 'list API keys');
    const now = ctx.clock.now();
    res.set('Cache-Control', 'no-store');
    respond(res, dashboardOperations.listKeys, 200, {
      data: (await listOwnKeys(ctx, platformId)).map((key) => presentKeySummary(key, now)),
    });
  });

  router.post('/dashboard/api/keys', async (req, res) => {
    const platformId = memberTenant(await session(req), 'write', 'issue API keys');
    // The name is optional, and so is the body that carries it.
    const body = req.body === undefined ? {} : parseBody(dashboardIssueKeyBodySchema, req);
    const issued = await issueOwnKey(ctx, {
      platformId,
      environment: ctx.environment,
      name: body.name,
      scope: body.scope,
    });
    respond(res, dashboardOperations.issueKey, 201, { data: presentKey(issued) });
  });

  router.post('/dashboard/api/keys/:id/rotate', async (req, res) => {
    const platformId = memberTenant(await session(req), 'write', 'rotate API keys');
    const { id } = parseParams(idParamSchema, req);
    const rotated = await rotateOwnKey(ctx, platformId, id);
    respond(res, dashboardOperations.rotateKey, 200, {
      data: { ...rotated, previousKeyExpiresAt: rotated.previousKeyExpiresAt.toISOString() },
    });
  });

  router.post('/dashboard/api/keys/:id/revoke', async (req, res) => {
    const platformId = memberTenant(await session(req), 'write', 'revoke API keys');
    const { id } = parseParams(idParamSchema, req);
    const revoked = await revokeOwnKey(ctx, platformId, id);
    respond(res, dashboardOperations.revokeKey, 200, {
      data: { revokedKeyId: revoked.revokedKeyId, revokedAt: revoked.revokedAt.toISOString() },
    });
  });

  // The box owner's view of its box's initial scan (issue 20), asked of enforcement as the tenant.
  router.get('/dashboard/api/boxes/:id/scan', async (req, res) => {
    const active = await session(req);
    const { id } = parseParams(idParamSchema, req);
    const answer = await readBoxScanProgress(ctx, active, { boxId: id, requestId: currentRequestId() ?? '' });
    res.set('Cache-Control', 'no-store').status(answer.status);
    const type = answer.headers['content-type'];
    if (type !== undefined) res.type(type);
    res.send(answer.body);
  });

  router.all('/dashboard/api/*rest', () => {
    throw new AppError('NOT_FOUND', 'No such dashboard endpoint');
  });

  // The service's root and the browser's default icon lead to the dashboard (issue #32): a person
  // who opens the address sees the product, not a JSON 404. The API is under /v1.
  router.get('/', (_req, res) => {
    res.set('Cache-Control', 'no-cache').redirect(302, '/dashboard');
  });
  router.get('/favicon.ico', (_req, res) => {
    res.set('Cache-Control', 'public, max-age=86400').redirect(301, '/dashboard/favicon.svg');
  });

  // The single-page app: its assets, and index.html for every page path (the router draws the page).
  const dir = ctx.dashboardDir;
  const index = dir === undefined ? undefined : path.join(dir, 'index.html');
  serveApiReference(router, dir);
  if (dir !== undefined && index !== undefined && existsSync(index)) {
    serveDashboardAssets(router, dir);
    // index.html names the hashed assets of the current build: asked again on every visit.
    router.get(['/dashboard', '/dashboard/*page'], (_req, res) => {
      res.set('Cache-Control', 'no-cache').sendFile(index);
    });
  } else {
    router.get(['/dashboard', '/dashboard/*page'], () => {
      throw new AppError('SERVICE_UNAVAILABLE', 'The dashboard is not built', {
        details: 'Run make build (it builds services/dashboard), or set DASHBOARD_DIR.',
      });
    });
  }
}

/**
 * The API reference (issue #32): Redoc drawing the served OpenAPI document, from files the
 * dashboard's build writes to docs/ (Redoc's bundle among them: nothing comes from another host).
 * Not hashed, so revalidated; sent pre-compressed like the dashboard's assets.
 */
function serveApiReference(router: Router, dir: string | undefined): void {
  const docs = dir === undefined ? undefined : path.join(dir, 'docs');
  const page = docs === undefined ? undefined : path.join(docs, 'index.html');
  if (docs === undefined || page === undefined || !existsSync(page)) {
    router.get(['/docs', '/docs/*file'], () => {
      throw new AppError('SERVICE_UNAVAILABLE', 'The API reference is not built', {
        details:
          'Run make build (it builds services/dashboard), or set DASHBOARD_DIR. The document itself is GET /v1/svc/openapi.json.',
      });
    });
    return;
  }
  router.get(['/docs', '/docs/'], (_req, res) => {
    res.set('Cache-Control', 'no-cache').sendFile(page);
  });
  router.use(
    '/docs',
    expressStaticGzip(docs, {
      enableBrotli: true,
      orderPreference: ['br', 'gzip'],
      index: false,
      serveStatic: {
        index: false,
        redirect: false,
        fallthrough: true,
        setHeaders: (res) => res.setHeader('Cache-Control', 'no-cache'),
      },
    }),
    () => {
      throw new AppError('NOT_FOUND', 'No such file of the API reference');
    },
  );
}

/**
 * The built dashboard's files (issue #30): source maps are never served (a map left in the
 * directory answers 404), the hashed files under assets/ are cached for a year and sent
 * pre-compressed (brotli, else gzip, per Accept-Encoding; the build writes .br and .gz beside
 * each), an unknown asset is 404 rather than the page.
 */
function serveDashboardAssets(router: Router, dir: string): void {
  router.get(/^\/dashboard\/.*\.map(\.(br|gz))?$/i, () => {
    throw new AppError('NOT_FOUND', 'No such dashboard file');
  });
  router.use(
    '/dashboard/assets',
    expressStaticGzip(path.join(dir, 'assets'), {
      enableBrotli: true,
      orderPreference: ['br', 'gzip'],
      index: false,
      serveStatic: { index: false, maxAge: '365d', immutable: true, fallthrough: true },
    }),
    () => {
      throw new AppError('NOT_FOUND', 'No such dashboard asset');
    },
  );
  // Files beside index.html (none today but what public/ would hold) are not hashed: revalidated.
  router.use(
    '/dashboard',
    express.static(dir, {
      index: false,
      // /dashboard is the app's first page, not a directory to redirect to /dashboard/.
      redirect: false,
      setHeaders: (res) => res.setHeader('Cache-Control', 'no-cache'),
    }),
  );
}
