import { performance } from 'node:perf_hooks';
import CircuitBreaker from 'opossum';
import { Registry, type Counter } from 'prom-client';
import { Pool } from 'undici';
import { AppError } from '@svc/errors';
import type { Logger } from '@svc/logger';
import { injectTraceContext, openSpan, SpanKind, tracingEnabled, type OpenSpan } from '@svc/telemetry';
import { counterOn, gaugeOn, histogramOn } from './metric-registration';

export interface HttpClientOptions {
  /** A name for metrics and logs, e.g. 'registry'. */
  target: string;
  /** Origin (and optional path prefix) of the downstream, e.g. 'http://registry:3000'. */
  baseUrl: string;
  /** Default 1000. */
  connectTimeoutMs?: number;
  /** Default 10000: the whole exchange, headers and body. */
  timeoutMs?: number;
  breaker?: {
    /** Default 50. */
    errorThresholdPercentage?: number;
    /** How long the breaker stays open before letting one trial call through. Default 5000. */
    resetTimeoutMs?: number;
    /** Calls in the rolling window before the breaker may open. Default 10. */
    volumeThreshold?: number;
    /** Default 10000. */
    rollingCountTimeoutMs?: number;
    /**
     * Requests that name a `tenant` (docs/spec/contracts.md §17): a timeout is first that tenant's
     * own failure (its own circuit opens at its second timeout in a row within the window,
     * answering its calls fast with 503 while every other tenant's go on), and counts against the target's
     * shared circuit only while timeouts come from at least this many tenants in the window.
     * Default 2. A refused connection or a 502/503/504 is always the target's own failure.
     */
    tenantsForSharedTimeouts?: number;
  };
  /** Where the client metrics go; pass the service's registry so /metrics shows them. */
  registry?: Registry;
  logger?: Logger;
  /** Keep-alive connections to the target. Default 128. */
  connections?: number;
}

export interface HttpRequest {
  method: string;
  /** May include ?query. */
  path: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  timeoutMs?: number;
  /**
   * Who the call is made for (a platform): its timeouts open its own circuit first, so that one
   * tenant's slow inputs do not open the circuit every tenant shares.
   */
  tenant?: string;
}

export interface HttpResponse {
  status: number;
  headers: Record<string, string | string[]>;
  body: Buffer;
}

export interface JsonRequest extends Omit<HttpRequest, 'body'> {
  /** Serialised with JSON.stringify; Content-Type set unless given. */
  body?: unknown;
}

export interface JsonResponse<T> {
  status: number;
  headers: Record<string, string | string[]>;
  /** The parsed body; undefined when the answer had none (204). */
  body: T;
}

export interface HttpClient {
  /** Sends a request; any HTTP answer (4xx and 5xx included) resolves; a down, hanging or broken-circuit target throws AppError SERVICE_UNAVAILABLE. */
  request(req: HttpRequest): Promise<HttpResponse>;
  /** `request` with a JSON body and a parsed JSON answer. */
  json<T>(req: JsonRequest): Promise<JsonResponse<T>>;
  /** True while the breaker refuses calls. */
  isOpen(): boolean;
  close(): Promise<void>;
}

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
// 502, 503 and 504 say the target (or what is behind it) is down; they trip the breaker. A 500 is
// a bug in one request, and a 4xx is the caller's fault: neither says the target is down.
const UNAVAILABLE_STATUSES = new Set([502, 503, 504]);
const TIMEOUT_CODES = new Set(['UND_ERR_CONNECT_TIMEOUT', 'UND_ERR_HEADERS_TIMEOUT', 'UND_ERR_BODY_TIMEOUT']);
const UNREACHABLE_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH']);

type FailureKind = 'timeout' | 'unreachable' | 'error';

/** A 502/503/504 answer: thrown inside the breaker so that it counts as a failure, then handed back to the caller. */
class UnavailableAnswer extends Error {
  constructor(readonly response: HttpResponse) {
    super(`Downstream answered ${response.status}`);
  }
}

/** The network let the call down (refused, timed out, reset). */
class CallFailure extends Error {
  constructor(
    readonly kind: FailureKind,
    readonly timeoutMs: number,
    cause: unknown,
    /** One tenant's timeout while others are answered: not counted against the shared circuit. */
    readonly tenantOnly = false,
  ) {
    super(kind, { cause });
  }
}

/** A tenant's own circuit: its recent timeouts and, once they reach the threshold, until when it is open. */
interface TenantCircuit {
  timeouts: number[];
  openUntil: number;
}

// Tenants tracked at most; past it the quietest are forgotten (a circuit is short-lived anyway).
const MAX_TRACKED_TENANTS = 10_000;

/**
 * Per-tenant timeouts (docs/spec/contracts.md §17): each tenant's circuit, and how many tenants
 * timed out lately, which decides whether a timeout says the target itself is slow.
 */
class TenantTimeouts {
  private readonly circuits = new Map<string, TenantCircuit>();

  constructor(
    private readonly threshold: number,
    private readonly windowMs: number,
    private readonly openMs: number,
  ) {}

  /** Until when the tenant's own circuit refuses its calls (0: closed). */
  openUntil(tenant: string, now: number): number {
    const circuit = this.circuits.get(tenant);
    return circuit !== undefined && circuit.openUntil > now ? circuit.openUntil : 0;
  }

  /** Records a timeout of the tenant's; true when it opened the tenant's circuit. */
  record(tenant: string, now: number): boolean {
    let circuit = this.circuits.get(tenant);
    if (circuit === undefined) {
      if (this.circuits.size >= MAX_TRACKED_TENANTS) this.forgetQuiet(now);
      circuit = { timeouts: [], openUntil: 0 };
      this.circuits.set(tenant, circuit);
    }
    circuit.timeouts = circuit.timeouts.filter((at) => now - at < this.windowMs);
    circuit.timeouts.push(now);
    if (circuit.timeouts.length >= this.threshold && circuit.openUntil <= now) {
      circuit.openUntil = now + this.openMs;
      circuit.timeouts = [];
      return true;
    }
    return false;
  }

  /** A call of the tenant's answered in time: its count starts again. */
  succeeded(tenant: string): void {
    const circuit = this.circuits.get(tenant);
    if (circuit !== undefined && circuit.openUntil === 0) this.circuits.delete(tenant);
  }

  /** Tenants with a timeout (or an open circuit) in the window. */
  tenantsTimingOut(now: number): number {
    let count = 0;
    for (const circuit of this.circuits.values()) {
      if (circuit.openUntil > now || circuit.timeouts.some((at) => now - at < this.windowMs)) count += 1;
    }
    return count;
  }

  private forgetQuiet(now: number): void {
    for (const [tenant, circuit] of this.circuits) {
      if (circuit.openUntil <= now && circuit.timeouts.every((at) => now - at >= this.windowMs)) {
        this.circuits.delete(tenant);
      }
    }
    if (this.circuits.size >= MAX_TRACKED_TENANTS) this.circuits.clear();
  }
}

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

function clientSpan(target: string, req: HttpRequest): OpenSpan | undefined {
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
function tracedHeaders(span: OpenSpan, headers: Record<string, string> | undefined): Record<string, string> {
  const traced = { ...headers };
  span.run(() => injectTraceContext(traced));
  return traced;
}

interface ClientMetrics {
  count(outcome: string): void;
  duration: { observe(seconds: number): void };
  state: { set(value: number): void };
}

/** The client's metrics bound to its target; label children are cached so that a call allocates none. */
function clientMetrics(registry: Registry, target: string): ClientMetrics {
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

const REPEATABLE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** A read, or a write its service deduplicates by its Idempotency-Key. */
function safeToRepeat(req: HttpRequest): boolean {
  if (REPEATABLE_METHODS.has(req.method.toUpperCase())) return true;
  return Object.keys(req.headers ?? {}).some((name) => name.toLowerCase() === 'idempotency-key');
}

function failureMessage(target: string, failure: CallFailure): string {
  switch (failure.kind) {
    case 'timeout':
      return `${target} did not answer within ${failure.timeoutMs} ms`;
    case 'unreachable':
      return `${target} is unreachable`;
    case 'error':
      return `${target} is unavailable (connection failed)`;
  }
}

function failureKind(err: unknown): FailureKind {
  const code = errorCode(err);
  if (code !== undefined && TIMEOUT_CODES.has(code)) return 'timeout';
  if (code !== undefined && UNREACHABLE_CODES.has(code)) return 'unreachable';
  return 'error';
}

/** An error that is the caller's doing (a bad header, an unsupported method), not the target's. */
function isCallerMistake(err: unknown): boolean {
  const code = errorCode(err);
  return code === 'UND_ERR_INVALID_ARG' || code === 'UND_ERR_NOT_SUPPORTED';
}

function errorCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null || !('code' in err)) return undefined;
  return typeof err.code === 'string' ? err.code : undefined;
}

function hasHeader(headers: Record<string, string>, name: string): boolean {
  for (const key of Object.keys(headers)) if (key.toLowerCase() === name) return true;
  return false;
}

function parseJson<T>(target: string, status: number, body: Buffer): T {
  // An empty answer (204) has no JSON; the caller reads the status.
  if (body.length === 0) return undefined as T;
  try {
    return JSON.parse(body.toString('utf8')) as T;
  } catch (err) {
    // A 502, 503 or 504 that is not JSON is a proxy's page between us and the target (a load
    // balancer whose replica died mid-request, an ingress): the target is unavailable, not buggy.
    if (UNAVAILABLE_STATUSES.has(status)) {
      throw new AppError('SERVICE_UNAVAILABLE', `${target} is unavailable (answered ${status})`, {
        headers: { 'Retry-After': '1' },
        details: { reason: 'unavailable_answer', status },
        cause: err,
      });
    }
    // A service of ours answering something other than JSON is a bug, not an outage: 500, logged.
    throw new AppError('INTERNAL', `${target} answered with a body that is not JSON`, { cause: err });
  }
}
