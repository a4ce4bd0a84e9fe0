import { performance } from 'node:perf_hooks';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Registry } from 'prom-client';
import { counterOn, histogramOn } from './metric-registration';

// Requests that matched no route (404, or refused before routing, e.g. 401) share one label so
// that scanners probing random URLs cannot blow up the series count.
export const UNMATCHED_ROUTE = '(unmatched)';
// nginx's convention for "the client went away before the answer was sent".
const CLIENT_CLOSED_STATUS = '499';

/** Records HTTP RED metrics (`http_requests_total`, `http_request_duration_seconds`) by method, route pattern and status. */
export function httpMetrics(registry: Registry): RequestHandler {
  const requests = counterOn(registry, {
    name: 'http_requests_total',
    help: 'HTTP requests served, by method, matched route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
  });
  const duration = histogramOn(registry, {
    name: 'http_request_duration_seconds',
    help: 'Time to serve an HTTP request, by method, matched route pattern and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  });

  return (req: Request, res: Response, next: NextFunction) => {
    // A monotonic clock: durations must not jump with wall-clock corrections.
    const start = performance.now();
    res.once('close', () => {
      const labels = {
        method: req.method,
        route: routePattern(req),
        status: res.writableFinished ? String(res.statusCode) : CLIENT_CLOSED_STATUS,
      };
      requests.inc(labels);
      duration.observe(labels, (performance.now() - start) / 1000);
    });
    next();
  };
}

/** The matched route pattern (`/v1/svc/claims/:id`), never the raw URL, to keep label cardinality bounded. */
function routePattern(req: Request): string {
  const route: unknown = req.route;
  if (route === undefined || route === null || typeof route !== 'object' || !('path' in route)) {
    return UNMATCHED_ROUTE;
  }
  const path = typeof route.path === 'string' ? route.path : String(route.path);
  return req.baseUrl + path;
}
