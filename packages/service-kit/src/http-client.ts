import { performance } from 'node:perf_hooks';
import CircuitBreaker from 'opossum';
import { Registry } from 'prom-client';
import { Pool } from 'undici';
import { AppError } from '@svc/errors';
import { tracingEnabled } from '@svc/telemetry';
import {
  CallFailure,
  errorCode,
  failureKind,
  failureMessage,
  hasHeader,
  isCallerMistake,
  parseJson,
  safeToRepeat,
  UnavailableAnswer,
  UNAVAILABLE_STATUSES,
  type FailureKind,
} from './http-client-failures';
import { clientMetrics, clientSpan, tracedHeaders } from './http-client-telemetry';
import type {
  HttpClient,
  HttpClientOptions,
  HttpRequest,
  HttpResponse,
  JsonRequest,
  JsonResponse,
} from './http-client.types';
import { TenantTimeouts } from './tenant-timeouts';

export type {
  HttpClient,
  HttpClientOptions,
  HttpRequest,
  HttpResponse,
  JsonRequest,
  JsonResponse,
} from './http-client.types';

const DEFAULTS = {
  connectTimeoutMs: 1000,
  timeoutMs: 10_000,
  errorThresholdPercentage: 50,
  resetTimeoutMs: 5000,
  volumeThreshold: 10,
  rollingCountTimeoutMs: 10_000,
  connections: 128,
  // Below Node's 5 s server keepAliveTimeout, so the client never sends on a socket the server is closing.
  keepAliveTimeoutMs: 4000,
};

const BREAKER_STATE = { closed: 0, halfOpen: 1, open: 2 } as const;

/** A keep-alive HTTP client for one downstream, with a total timeout, an opossum breaker and metrics; a down target is a fast 503. */
export function createHttpClient(options: HttpClientOptions): HttpClient {
  const { target, logger } = options;
  const registry = options.registry ?? new Registry();
  const timeoutMs = options.timeoutMs ?? DEFAULTS.timeoutMs;
  const resetTimeoutMs = options.breaker?.resetTimeoutMs ?? DEFAULTS.resetTimeoutMs;

  const base = new URL(options.baseUrl);
  // Pool speaks to an origin; a path in baseUrl becomes a prefix of every request path.
  const prefix = base.pathname === '/' ? '' : base.pathname.replace(/\/+$/, '');
  const pool = new Pool(base.origin, {
    connections: options.connections ?? DEFAULTS.connections,
    connectTimeout: options.connectTimeoutMs ?? DEFAULTS.connectTimeoutMs,
    keepAliveTimeout: DEFAULTS.keepAliveTimeoutMs,
  });

  const metrics = clientMetrics(registry, target);

  const rollingCountTimeoutMs = options.breaker?.rollingCountTimeoutMs ?? DEFAULTS.rollingCountTimeoutMs;
  const volumeThreshold = options.breaker?.volumeThreshold ?? DEFAULTS.volumeThreshold;
  const tenantsForSharedTimeouts = options.breaker?.tenantsForSharedTimeouts ?? 2;
  // A tenant's own circuit opens at its second timeout in a row within the window: it costs only
  // that tenant, and one client calling in a row sees it open within two budgets.
  const tenantTimeouts = new TenantTimeouts(2, rollingCountTimeoutMs, resetTimeoutMs);

  const send = async (req: HttpRequest): Promise<HttpResponse> => {
    const limitMs = req.timeoutMs ?? timeoutMs;
    // One deadline for headers and body together: undici's own timeouts are per phase and would let
    // a trickling body run for several times the limit.
    const controller = new AbortController();
    const deadline = setTimeout(() => controller.abort(), limitMs);
    const started = performance.now();
    let outcome = 'error';
    // Tracing on: a CLIENT span, and the callee's request carries it as `traceparent`.
    const span = tracingEnabled() ? clientSpan(target, req) : undefined;
    const headers = span === undefined ? req.headers : tracedHeaders(span, req.headers);
    try {
      const res = await pool.request({
        method: req.method,
        path: prefix === '' ? req.path : prefix + req.path,
        headers,
        body: req.body,
        signal: controller.signal,
      });
      const body = Buffer.from(await res.body.arrayBuffer());
      outcome = String(res.statusCode);
      // undici never puts undefined values in a parsed header object; its type merely allows them.
      const response = {
        status: res.statusCode,
        headers: res.headers as Record<string, string | string[]>,
        body,
      };
      if (UNAVAILABLE_STATUSES.has(res.statusCode)) throw new UnavailableAnswer(response);
      return response;
    } catch (err) {
      if (err instanceof UnavailableAnswer) throw err;
      if (isCallerMistake(err)) {
        outcome = 'invalid_request';
        throw err;
      }
      const kind: FailureKind = controller.signal.aborted ? 'timeout' : failureKind(err);
      outcome = kind;
      if (kind === 'timeout' && req.tenant !== undefined) {
        const now = performance.now();
        if (tenantTimeouts.record(req.tenant, now)) {
          logger?.warn(
            { target, tenant: req.tenant, resetTimeoutMs },
            `Circuit to ${target} opened for one tenant`,
          );
        }
        // One tenant's slow inputs are its own failure; the target is slow once several tenants time out.
        const shared = tenantTimeouts.tenantsTimingOut(now) >= tenantsForSharedTimeouts;
        throw new CallFailure(kind, limitMs, err, !shared);
      }
      throw new CallFailure(kind, limitMs, err);
    } finally {
      clearTimeout(deadline);
      span?.span.setAttribute('svc.outcome', outcome);
      span?.end(/^\d+$/.test(outcome) && Number(outcome) < 500 ? undefined : new Error(outcome));
      metrics.count(outcome);
      metrics.duration.observe((performance.now() - started) / 1000);
    }
  };

  const breaker = new CircuitBreaker(send, {
    name: target,
    // The deadline lives in `send`, where it can abort the request; opossum's own timeout cannot.
    timeout: false,
    resetTimeout: resetTimeoutMs,
    errorThresholdPercentage: options.breaker?.errorThresholdPercentage ?? DEFAULTS.errorThresholdPercentage,
    volumeThreshold,
    rollingCountTimeout: rollingCountTimeoutMs,
    // Percentiles and snapshots sort latency arrays on a timer: work nobody reads on the gateway's hot path.
    rollingPercentilesEnabled: false,
    enableSnapshots: false,
    // Only a down target trips the breaker, never a malformed request of the caller.
    // Nor one tenant's timeouts while the others' calls are answered (docs/spec/contracts.md §17).
    errorFilter: (err: unknown) =>
      !(err instanceof UnavailableAnswer || err instanceof CallFailure) ||
      (err instanceof CallFailure && err.tenantOnly),
  });

  let openedAt = 0;
  metrics.state.set(BREAKER_STATE.closed);
  breaker.on('open', () => {
    openedAt = performance.now();
    metrics.state.set(BREAKER_STATE.open);
    logger?.warn({ target, resetTimeoutMs }, `Circuit to ${target} opened`);
  });
  breaker.on('halfOpen', () => {
    metrics.state.set(BREAKER_STATE.halfOpen);
    logger?.info({ target }, `Circuit to ${target} half-open; trying one call`);
  });
  breaker.on('close', () => {
    metrics.state.set(BREAKER_STATE.closed);
    logger?.info({ target }, `Circuit to ${target} closed`);
  });

  /**
   * One call, and a second one at once when the first surely did no harm to repeat: the
   * connection broke without an answer (a kept-alive socket the other side closed, a replica
   * killed behind a load balancer) or a proxy answered 502 for it, and the request is safe to send
   * twice (a read, or a write carrying an Idempotency-Key, which its service applies once).
   * Behind a balancer the second attempt goes to another replica.
   */
  const fireOnceMore = async (req: HttpRequest): Promise<HttpResponse> => {
    try {
      return await breaker.fire(req);
    } catch (err) {
      const broken =
        (err instanceof CallFailure && err.kind === 'error') ||
        (err instanceof UnavailableAnswer && err.response.status === 502);
      if (!broken || !safeToRepeat(req) || breaker.opened) throw err;
      metrics.count('retried');
      return breaker.fire(req);
    }
  };

  const secondsUntilHalfOpen = (): number =>
    Math.max(1, Math.ceil((openedAt + resetTimeoutMs - performance.now()) / 1000));

  const request = async (req: HttpRequest): Promise<HttpResponse> => {
    if (req.tenant !== undefined) {
      const openUntil = tenantTimeouts.openUntil(req.tenant, performance.now());
      if (openUntil > 0) {
        metrics.count('circuit_open');
        const retryAfter = Math.max(1, Math.ceil((openUntil - performance.now()) / 1000));
        throw new AppError(
          'SERVICE_UNAVAILABLE',
          `${target} is unavailable to this caller (circuit open after its own calls timed out)`,
          {
            headers: { 'Retry-After': String(retryAfter) },
            details: { reason: 'circuit_open' },
          },
        );
      }
    }
    try {
      const response = await fireOnceMore(req);
      if (req.tenant !== undefined) tenantTimeouts.succeeded(req.tenant);
      return response;
    } catch (err) {
      if (err instanceof UnavailableAnswer) return err.response;
      if (err instanceof CallFailure) {
        // The reason tells a caller whether the call may have run (timeout) or surely did not.
        throw new AppError('SERVICE_UNAVAILABLE', failureMessage(target, err), {
          headers: { 'Retry-After': '1' },
          details: { reason: err.kind === 'error' ? 'connection_failed' : err.kind },
          cause: err.cause,
        });
      }
      const code = errorCode(err);
      if (code === 'EOPENBREAKER') {
        metrics.count('circuit_open');
        throw new AppError('SERVICE_UNAVAILABLE', `${target} is unavailable (circuit open)`, {
          headers: { 'Retry-After': String(secondsUntilHalfOpen()) },
          details: { reason: 'circuit_open' },
          cause: err,
        });
      }
      if (code === 'ESHUTDOWN') {
        throw new AppError('SERVICE_UNAVAILABLE', `The client of ${target} is closed`, {
          headers: { 'Retry-After': '1' },
          details: { reason: 'client_closed' },
          cause: err,
        });
      }
      throw err;
    }
  };

  const json = async <T>(req: JsonRequest): Promise<JsonResponse<T>> => {
    const headers: Record<string, string> = { accept: 'application/json', ...req.headers };
    let body: string | undefined;
    if (req.body !== undefined) {
      body = JSON.stringify(req.body);
      if (!hasHeader(headers, 'content-type')) headers['content-type'] = 'application/json';
    }
    const res = await request({
      method: req.method,
      path: req.path,
      headers,
      body,
      timeoutMs: req.timeoutMs,
    });
    return { status: res.status, headers: res.headers, body: parseJson<T>(target, res.status, res.body) };
  };

  const close = async (): Promise<void> => {
    breaker.shutdown();
    await pool.close();
  };

  return { request, json, isOpen: () => breaker.opened, close };
}
