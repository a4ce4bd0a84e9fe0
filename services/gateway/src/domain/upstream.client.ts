import type { ServiceName } from '@svc/contracts/common';
import { systemClock } from '@svc/clock';
import { errors } from '@svc/errors';
import { createHttpClient, signInternalToken, type HttpClient, type InternalClaims } from '@svc/service-kit';
import type { Logger } from '@svc/logger';
import type { Registry } from 'prom-client';

export interface UpstreamRequest {
  method: string;
  path: string;
  requestId: string;
  body?: string | Buffer;
  contentType?: string;
  /** The route's budget; default the client's. */
  timeoutMs?: number;
  /** Forwarded to the owning service, which records it with the write (ADR 0011). */
  idempotencyKey?: string;
}

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

// Headers of a service's answer that mean something to the platform; the rest stay inside.
const FORWARDED_RESPONSE_HEADERS = [
  'content-type',
  'retry-after',
  'location',
  'cache-control',
  'etag',
  'idempotent-replayed',
];
// Per service: a hang opens the circuit after a few timed-out calls (within 5 s of a hang even for
// one client calling the identity check in a row: that platform's own circuit; the shared one once
// two platforms time out), and a trial call goes through 3 s later, so a recovered service is used
// again within 5 s. One platform's slow inputs open only its own circuit (docs/spec/contracts.md §17).
const UPSTREAM_BREAKER = { volumeThreshold: 3, resetTimeoutMs: 3000, rollingCountTimeoutMs: 10_000 };
/** The budget of a route that declares none (a write's). */
export const DEFAULT_UPSTREAM_TIMEOUT_MS = 10_000;
const TOKEN_TTL_SECONDS = 300;
// Reuse a minted token while it has at least this long to live: signing on every request is waste.
const TOKEN_REUSE_MARGIN_MS = 60_000;
const MAX_CACHED_TOKENS = 10_000;

/** Calls the services that own public routes, with an internal JWT naming the caller. */
export class UpstreamClient {
  private readonly clients = new Map<ServiceName, HttpClient>();
  private readonly tokens = new Map<string, { token: string; renewAt: number }>();

  constructor(
    private readonly options: {
      serviceUrls: Partial<Record<ServiceName, string>>;
      internalJwtSecret: string;
      logger: Logger;
      registry: Registry;
      timeoutMs?: number;
    },
  ) {}

  private client(service: ServiceName): HttpClient {
    const existing = this.clients.get(service);
    if (existing !== undefined) return existing;
    const baseUrl = this.options.serviceUrls[service];
    if (baseUrl === undefined) {
      throw errors.unavailable(`The ${service} service is not deployed here`, 30);
    }
    const client = createHttpClient({
      target: service,
      baseUrl,
      connectTimeoutMs: 1000,
      timeoutMs: this.options.timeoutMs ?? DEFAULT_UPSTREAM_TIMEOUT_MS,
      breaker: UPSTREAM_BREAKER,
      registry: this.options.registry,
      logger: this.options.logger,
    });
    this.clients.set(service, client);
    return client;
  }

  private token(claims: InternalClaims): string {
    // Every signed claim is in the key: a plan changed by the operator reaches the services with
    // the key's next request (as its limits do), not with the next token minutes later.
    const cacheKey = JSON.stringify([
      claims.keyId,
      claims.platformId,
      claims.environment,
      claims.plan,
      claims.platformDomain,
      claims.platformName,
      claims.role,
    ]);
    const now = systemClock.now().getTime();
    const cached = this.tokens.get(cacheKey);
    if (cached !== undefined && cached.renewAt > now) return cached.token;
    if (this.tokens.size >= MAX_CACHED_TOKENS) this.tokens.clear();
    const token = signInternalToken(this.options.internalJwtSecret, claims, {
      ttlSeconds: TOKEN_TTL_SECONDS,
    });
    this.tokens.set(cacheKey, { token, renewAt: now + TOKEN_TTL_SECONDS * 1000 - TOKEN_REUSE_MARGIN_MS });
    return token;
  }

  /** The services this gateway can reach (those with a URL), itself excluded. */
  deployedServices(): ServiceName[] {
    return (Object.keys(this.options.serviceUrls) as ServiceName[]).filter(
      (service) => service !== 'gateway' && this.options.serviceUrls[service] !== undefined,
    );
  }

  /**
   * Forwards one request; a service that is down, hanging past the budget or not deployed, or an
   * open circuit, is a 503 SERVICE_UNAVAILABLE with Retry-After.
   */
  async forward(
    service: ServiceName,
    claims: InternalClaims,
    request: UpstreamRequest,
  ): Promise<UpstreamResponse> {
    const headers: Record<string, string> = {
      authorization: `Bearer ${this.token(claims)}`,
      'x-request-id': request.requestId,
    };
    if (request.body !== undefined) headers['content-type'] = request.contentType ?? 'application/json';
    if (request.idempotencyKey !== undefined) headers['idempotency-key'] = request.idempotencyKey;
    const response = await this.client(service).request({
      method: request.method,
      path: request.path,
      headers,
      ...(request.body === undefined ? {} : { body: request.body }),
      ...(request.timeoutMs === undefined ? {} : { timeoutMs: request.timeoutMs }),
      // One platform's timeouts open its own circuit, not the one every platform shares (§17).
      tenant: claims.platformId,
    });
    const forwarded: Record<string, string> = {};
    for (const name of FORWARDED_RESPONSE_HEADERS) {
      const value = response.headers[name];
      if (value !== undefined) forwarded[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    // A 502 or 504, or a 503 that is not one of our JSON errors (a load balancer's page between us
    // and the service): the platform gets our error, in our shape, with when to retry.
    if (
      response.status === 502 ||
      response.status === 504 ||
      (response.status === 503 && !isJson(forwarded))
    ) {
      throw errors.unavailable(`The ${service} service is unavailable`, 1);
    }
    // A service that says it cannot serve now (its database is down): the platform learns when to retry.
    if (response.status === 503 && forwarded['retry-after'] === undefined) forwarded['retry-after'] = '1';
    return { status: response.status, headers: forwarded, body: response.body };
  }

  async close(): Promise<void> {
    await Promise.all([...this.clients.values()].map((client) => client.close()));
  }
}

function isJson(headers: Record<string, string>): boolean {
  return /^application\/(problem\+)?json\b/i.test(headers['content-type'] ?? '');
}
