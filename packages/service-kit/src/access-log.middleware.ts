import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Request, RequestHandler } from 'express';
import { pinoHttp } from 'pino-http';
import type { Logger } from '@svc/logger';
import { requestFactsOf, requestIdOf } from './request-context.middleware';
import type { RouteNamer } from './route-names';

// Probes and scrapes come every few seconds from the orchestrator and Prometheus: not requests
// anyone wants a line for (their counts are in http_requests_total).
const UNLOGGED_PATHS = new Set(['/healthz', '/readyz', '/metrics']);

/**
 * One access-log line per request (pino-http on the service's own logger), written when the
 * answer is out: `route` (operation id), `method`, `status`, `durationMs`, `requestId`, the
 * `platformId` when the request was authenticated and the closed error `code` when it failed.
 * 5xx at error, everything else at info; probes and scrapes are not logged.
 */
export function accessLog(logger: Logger, nameRoute: RouteNamer): RequestHandler {
  const fields = (req: IncomingMessage, res: ServerResponse, durationMs: unknown) => {
    const request = req as Request;
    const facts = requestFactsOf(request);
    return {
      requestId: requestIdOf(request),
      method: request.method,
      route: nameRoute(request),
      status: res.writableFinished ? res.statusCode : 499,
      durationMs,
      ...(facts.platformId === undefined ? {} : { platformId: facts.platformId }),
      ...(facts.errorCode === undefined ? {} : { code: facts.errorCode }),
      ...(facts.traceId === undefined ? {} : { traceId: facts.traceId }),
    };
  };
  const middleware = pinoHttp({
    logger,
    // The request id is ours (X-Request-Id, request-context middleware), never pino-http's counter.
    genReqId: (req) => requestIdOf(req as Request) ?? '',
    // The line says what matters and no more: no headers (credentials), no bodies.
    serializers: { req: () => undefined, res: () => undefined },
    wrapSerializers: false,
    // The line is written on the logger itself: no per-request child carrying pino-http's `reqId`
    // beside our `requestId`.
    quietReqLogger: false,
    quietResLogger: true,
    autoLogging: { ignore: (req) => UNLOGGED_PATHS.has((req as Request).path) },
    customLogLevel: (_req, res, err) => (err !== undefined || res.statusCode >= 500 ? 'error' : 'info'),
    customSuccessObject: (req, res, val: { durationMs?: unknown }) => fields(req, res, val.durationMs),
    customErrorObject: (req, res, _err, val: { durationMs?: unknown }) => fields(req, res, val.durationMs),
    customSuccessMessage: () => 'request completed',
    customErrorMessage: () => 'request failed',
    customAttributeKeys: { responseTime: 'durationMs' },
  });
  return middleware as unknown as RequestHandler;
}
