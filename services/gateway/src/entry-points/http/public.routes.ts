import type { Request, Response, Router } from 'express';
import { currentRequestId } from '@svc/logger';
import type { GatewayContext } from '../../domain/gateway-context';
import { handlePublicRequest } from '../../domain/handle-public-request.use-case';
import { sessionCredentials } from './session-cookie';

/** Every public path: the use case authenticates, counts and dispatches; this only parses and answers. */
export function publicRoutes(router: Router, ctx: GatewayContext): void {
  router.get('/v1/svc/openapi.json', (_req, res) => {
    res.json(ctx.openapi);
  });

  router.use(async (req: Request, res: Response, next) => {
    const answer = await handlePublicRequest(ctx, {
      method: req.method,
      path: req.path,
      url: req.originalUrl,
      authorization: req.header('authorization'),
      session: sessionCredentials(req),
      idempotencyKey: req.header('idempotency-key'),
      body: req.body as unknown,
      requestId: currentRequestId() ?? '',
    });
    if (answer.kind === 'not-public') {
      next();
      return;
    }
    res.set(answer.rateHeaders);
    if (answer.kind === 'refused') throw answer.error;
    res.status(answer.result.status).set(answer.result.headers).send(answer.result.body);
  });
}
