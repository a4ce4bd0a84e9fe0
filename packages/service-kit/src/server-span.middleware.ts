import type { NextFunction, Request, RequestHandler, Response } from 'express';
import { openSpan, SpanKind, tracingEnabled } from '@svc/telemetry';
import { describeRequest, requestFactsOf, requestIdOf } from './request-context.middleware';
import type { RouteNamer } from './route-names';

/**
 * A SERVER span per request when tracing is on, named `<METHOD> <route>` once the route is known,
 * its parent the caller's W3C `traceparent` (`trustTraceparent`) or a new trace (the public edge:
 * a client must not pick our trace ids nor force sampling). The rest of the request runs inside it,
 * so outgoing calls, outbox rows and log lines carry it. With tracing off: `next()` and nothing else.
 */
export function serverSpan(
  service: string,
  nameRoute: RouteNamer,
  trustTraceparent: boolean,
): RequestHandler {
  const scope = `svc.${service}`;
  return (req: Request, res: Response, next: NextFunction) => {
    if (!tracingEnabled()) {
      next();
      return;
    }
    const open = openSpan(scope, req.method, {
      kind: SpanKind.SERVER,
      parent: trustTraceparent ? req.headers : null,
      attributes: { 'http.request.method': req.method, 'url.path': req.path, 'svc.service': service },
    });
    if (open === undefined) {
      next();
      return;
    }
    describeRequest(req, { traceId: open.span.spanContext().traceId });
    res.once('close', () => {
      const route = nameRoute(req);
      const status = res.writableFinished ? res.statusCode : 499;
      const facts = requestFactsOf(req);
      open.span.updateName(`${req.method} ${route}`);
      open.span.setAttributes({
        'http.route': route,
        'http.response.status_code': status,
        'svc.request_id': requestIdOf(req) ?? '',
        ...(facts.platformId === undefined ? {} : { 'svc.platform_id': facts.platformId }),
        ...(facts.errorCode === undefined ? {} : { 'error.type': facts.errorCode }),
      });
      open.end(status >= 500 ? new Error(`HTTP ${status}`) : undefined);
    });
    open.run(next);
  };
}
