import { performance } from 'node:perf_hooks';
import type { NextFunction, Request, RequestHandler, Response } from 'express';
import type { Registry } from 'prom-client';
import { counterOn, histogramOn } from './metric-registration';
import type { RouteNamer } from './route-names';

// nginx's convention for "the client went away before the answer was sent".
const CLIENT_CLOSED_STATUS = '499';

/** The HTTP RED series of `registry` (created on first use): what every request is counted in. */
export function httpMetricsOn(registry: Registry) {
  const requests = counterOn(registry, {
    name: 'http_requests_total',
    help: 'HTTP requests served, by method, route (operation id, else the matched pattern) and status.',
    labelNames: ['method', 'route', 'status'] as const,
  });
  const duration = histogramOn(registry, {
    name: 'http_request_duration_seconds',
    help: 'Time to serve an HTTP request, by method, route (operation id, else the matched pattern) and status.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  });
  return { requests, duration };
}

/**
 * Records HTTP RED metrics (`http_requests_total`, `http_request_duration_seconds`) by method,
 * route (the operation id where one was served, see `routeNamer`) and status.
 */
export function httpMetrics(registry: Registry, nameRoute: RouteNamer): RequestHandler {
  const { requests, duration } = httpMetricsOn(registry);

  return (req: Request, res: Response, next: NextFunction) => {
    // A monotonic clock: durations must not jump with wall-clock corrections.
    const start = performance.now();
    res.once('close', () => {
      const labels = {
        method: req.method,
        route: nameRoute(req),
        status: res.writableFinished ? String(res.statusCode) : CLIENT_CLOSED_STATUS,
      };
      requests.inc(labels);
      duration.observe(labels, (performance.now() - start) / 1000);
    });
    next();
  };
}
