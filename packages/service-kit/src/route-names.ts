import type { Request } from 'express';
import { describeRequest, requestFactsOf } from './request-context.middleware';

// Requests that matched no route (404, or refused before routing, e.g. 401) share one label so
// that scanners probing random URLs cannot blow up the series count.
export const UNMATCHED_ROUTE = '(unmatched)';

/** An operation as `@svc/contracts` declares it: its id names the route in metrics, logs and spans. */
export interface NamedOperation {
  id: string;
  method: string;
  path: string;
  upstreamPath?: string;
}

/** Names the route a request took: what the metrics label `route`, the access log and the span say. */
export type RouteNamer = (req: Request) => string;

/**
 * The operation id when the request took a declared operation's route (matched on method and
 * path pattern, the path on the owning service included), else the matched pattern
 * (`/internal/boxes/:id`), else `(unmatched)`; a name given with `describeRequest` wins (the
 * gateway's catch-all proxy names the operation it forwarded). Never the raw URL: cardinality
 * stays bounded by the declared routes.
 */
export function routeNamer(operations: readonly NamedOperation[] = []): RouteNamer {
  const byPattern = new Map<string, string>();
  for (const op of operations) {
    for (const path of [op.upstreamPath ?? op.path, op.path]) {
      const key = `${op.method.toUpperCase()} ${path}`;
      if (!byPattern.has(key)) byPattern.set(key, op.id);
    }
  }
  return (req) => {
    const facts = requestFactsOf(req);
    if (facts.route !== undefined) return facts.route;
    const pattern = routePattern(req);
    const name =
      pattern === undefined ? UNMATCHED_ROUTE : (byPattern.get(`${req.method} ${pattern}`) ?? pattern);
    // The metrics and the access line both ask, once the answer is out: resolve once.
    describeRequest(req, { route: name });
    return name;
  };
}

/** The matched route pattern (`/v1/svc/claims/:id`), undefined when no route took the request. */
function routePattern(req: Request): string | undefined {
  const route: unknown = req.route;
  if (route === undefined || route === null || typeof route !== 'object' || !('path' in route)) {
    return undefined;
  }
  const path = typeof route.path === 'string' ? route.path : String(route.path);
  return req.baseUrl + path;
}
