import type { Counter, Registry } from 'prom-client';
import { injectTraceContext, openSpan, SpanKind, type OpenSpan } from '@svc/telemetry';
import type { HttpRequest } from './http-client.types';
import { counterOn, gaugeOn, histogramOn } from './metric-registration';

// The HTTP client's spans and metrics (createHttpClient).

export function clientSpan(target: string, req: HttpRequest): OpenSpan | undefined {
  return openSpan('svc.http-client', `${req.method} ${target}`, {
    kind: SpanKind.CLIENT,
    attributes: {
      'http.request.method': req.method,
      'server.address': target,
      'url.path': req.path.split('?')[0] ?? '',
    },
  });
}

/** The request's headers plus the span's `traceparent` (a copy: the caller's object is left alone). */
export function tracedHeaders(
  span: OpenSpan,
  headers: Record<string, string> | undefined,
): Record<string, string> {
  const traced = { ...headers };
  span.run(() => injectTraceContext(traced));
  return traced;
}

export interface ClientMetrics {
  count(outcome: string): void;
  duration: { observe(seconds: number): void };
  state: { set(value: number): void };
}

/** The client's metrics bound to its target; label children are cached so that a call allocates none. */
export function clientMetrics(registry: Registry, target: string): ClientMetrics {
  const requests = counterOn(registry, {
    name: 'http_client_requests_total',
    help: 'Outbound HTTP calls by target and outcome (HTTP status, timeout, unreachable, error, circuit_open, invalid_request; retried: a broken call sent once more).',
    labelNames: ['target', 'status'] as const,
  });
  const duration = histogramOn(registry, {
    name: 'http_client_request_duration_seconds',
    help: 'Time of outbound HTTP calls that reached the network, by target.',
    labelNames: ['target'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  });
  const state = gaugeOn(registry, {
    name: 'circuit_breaker_state',
    help: 'Circuit breaker state by target: 0 closed, 1 half-open, 2 open.',
    labelNames: ['target'] as const,
  });
  const counters = new Map<string, Counter.Internal>();
  return {
    count(outcome) {
      let child = counters.get(outcome);
      if (child === undefined) {
        child = requests.labels({ target, status: outcome });
        counters.set(outcome, child);
      }
      child.inc();
    },
    duration: duration.labels({ target }),
    state: state.labels({ target }),
  };
}
