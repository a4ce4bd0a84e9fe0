import type { Request, Response, Router } from 'express';
import { currentRequestId } from '@svc/logger';
import { authenticateRequest, rateLimitedError } from '../../domain/authenticate-request.use-case';
import { dispatchRequest } from '../../domain/dispatch-request.use-case';
import type { GatewayContext } from '../../domain/gateway-context';

/** The second path family's prefixes (docs/spec/contracts.md §12); the reference family lives under /v1/svc. */
export const PUBLIC_PREFIXES = ['/v1/svc', '/identity', '/licensing', '/revenue', '/enforcement'];

function isPublicPath(path: string): boolean {
  return PUBLIC_PREFIXES.some((prefix) => path === prefix || path.startsWith(`${prefix}/`));
}

/** Every public path: authenticate and count, then dispatch to the owning service. */
export function publicRoutes(router: Router, ctx: GatewayContext): void {
  router.get('/v1/svc/openapi.json', (_req, res) => {
    res.json(ctx.openapi);
  });

  router.use(async (req: Request, res: Response, next) => {
    if (!isPublicPath(req.path)) {
      next();
      return;
    }
    const matched = ctx.routes.match(req.method, req.path);
    const auth = await authenticateRequest(
      { db: ctx.hotPathDb, store: ctx.store, clock: ctx.clock, deploymentEnvironment: ctx.environment },
      { authorization: req.header('authorization'), extraBucket: matched?.route.bucket },
    );
    res.set(auth.rate.headers);
    if (!auth.rate.allowed) throw rateLimitedError(auth.rate);

    const queryStart = req.originalUrl.indexOf('?');
    const result = await dispatchRequest(ctx, {
      caller: auth.caller,
      matched,
      method: req.method,
      url: req.originalUrl,
      search: queryStart === -1 ? '' : req.originalUrl.slice(queryStart),
      body: req.body as unknown,
      idempotencyKey: req.header('idempotency-key'),
      requestId: currentRequestId() ?? '',
    });
    res.status(result.status).set(result.headers).send(result.body);
  });
}
