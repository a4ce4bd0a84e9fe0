import type { Request, Response, Router } from 'express';
import { currentRequestId } from '@svc/logger';
import { describeRequest } from '@svc/service-kit';
import type { GatewayContext } from '../../domain/gateway-context';
import {
  countPublicRequest,
  handleAnonymousRequest,
  handlePublicRequest,
  matchAnonymous,
  type CountedRequest,
} from '../../domain/handle-public-request.use-case';
import { sessionCredentials } from './session-cookie';

/** The document is served to anyone, without a key, and counted against no budget. */
export const OPENAPI_PATH = '/v1/svc/openapi.json';

/**
 * Before the body is read: authenticate and count a public request, and put its X-RateLimit-* on
 * the answer whatever it turns out to be (a body refused with 413 or 415 included).
 */
export function publicRoutesBeforeBody(router: Router, ctx: GatewayContext): void {
  router.use(async (req: Request, res: Response, next) => {
    // The document, and other services' operations for anyone (signing keys, status lists): no key, no count.
    if (
      (req.path === OPENAPI_PATH && req.method === 'GET') ||
      matchAnonymous(ctx, req.method, req.path) !== null
    ) {
      next();
      return;
    }
    const started = performance.now();
    const authorization = req.header('authorization');
    const counted = await countPublicRequest(ctx, {
      method: req.method,
      path: req.path,
      authorization,
      session: sessionCredentials(req),
    });
    if (counted !== null) {
      res.locals.counted = counted;
      if (counted.kind === 'counted') {
        res.set(counted.auth.rate.headers);
        // A key's request goes to its platform's request log once answered (#32); a session's does not.
        if (authorization !== undefined) logWhenAnswered(ctx, req, res, counted, started);
      }
    }
    next();
  });
}

/**
 * Notes the request in this replica's request-log buffer once it is over (one push, no I/O): when
 * its answer was sent, or when the client gave up first (status 499, as proxies log it).
 */
/** The status a request log gives a request whose client closed the connection before the answer. */
export const CLIENT_CLOSED_REQUEST = 499;

function logWhenAnswered(
  ctx: GatewayContext,
  req: Request,
  res: Response,
  counted: Extract<CountedRequest, { kind: 'counted' }>,
  started: number,
): void {
  const { caller } = counted.auth;
  const requestId = currentRequestId() ?? '';
  res.once('close', () => {
    ctx.requestLogBuffer.note({
      platformId: caller.platformId,
      keyId: caller.keyId,
      at: ctx.clock.now(),
      method: req.method,
      path: req.path,
      operation: counted.matched?.route.id ?? null,
      status: res.writableFinished ? res.statusCode : CLIENT_CLOSED_REQUEST,
      latencyMs: Math.round(performance.now() - started),
      requestId,
    });
  });
}

/** Every public path: the use case authenticates, counts and dispatches; this only parses and answers. */
export function publicRoutes(router: Router, ctx: GatewayContext): void {
  router.get(OPENAPI_PATH, (_req, res) => {
    // eslint-disable-next-line no-restricted-syntax -- the document generated from the contracts (make openapi-check compares it with packages/sdk/openapi.json)
    res.json(ctx.openapi);
  });

  router.use(async (req: Request, res: Response, next) => {
    const matched = matchAnonymous(ctx, req.method, req.path);
    if (matched === null) {
      next();
      return;
    }
    describeRequest(req, { route: matched.route.id });
    const result = await handleAnonymousRequest(
      ctx,
      { method: req.method, url: req.originalUrl, requestId: currentRequestId() ?? '' },
      matched,
    );
    res.status(result.status).set(result.headers).send(result.body);
  });

  router.use(async (req: Request, res: Response, next) => {
    const answer = await handlePublicRequest(
      ctx,
      {
        method: req.method,
        path: req.path,
        url: req.originalUrl,
        authorization: req.header('authorization'),
        session: sessionCredentials(req),
        idempotencyKey: req.header('idempotency-key'),
        // A session's body, parsed by the JSON body policy, is forwarded as JSON.
        body: req.body === undefined ? undefined : Buffer.from(JSON.stringify(req.body)),
        requestId: currentRequestId() ?? '',
        note: (facts) => describeRequest(req, facts),
      },
      res.locals.counted as CountedRequest | undefined,
    );
    if (answer.kind === 'not-public') {
      next();
      return;
    }
    res.set(answer.rateHeaders);
    if (answer.kind === 'refused') throw answer.error;
    res.status(answer.result.status).set(answer.result.headers).send(answer.result.body);
  });
}
