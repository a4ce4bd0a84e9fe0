import type { ServiceName } from '@svc/contracts';
import { systemClock } from '@svc/clock';
import { errors } from '@svc/errors';
import { createHttpClient, signInternalToken, type HttpClient, type InternalClaims } from '@svc/service-kit';
import type { Logger } from '@svc/logger';
import type { Registry } from 'prom-client';

export interface UpstreamRequest {
  method: string;
  path: string;
  requestId: string;
  body?: string;
  contentType?: string;
}

export interface UpstreamResponse {
  status: number;
  headers: Record<string, string>;
  body: Buffer;
}

// Headers of a service's answer that mean something to the platform; the rest stay inside.
const FORWARDED_RESPONSE_HEADERS = ['content-type', 'retry-after', 'location', 'cache-control', 'etag'];
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
      timeoutMs: this.options.timeoutMs ?? 30_000,
      registry: this.options.registry,
      logger: this.options.logger,
    });
    this.clients.set(service, client);
    return client;
  }

  private token(claims: InternalClaims): string {
    const cacheKey = `${claims.keyId}:${claims.platformId}`;
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

  /** Forwards one request; a service that is down or not deployed answers 503 SERVICE_UNAVAILABLE. */
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
    const response = await this.client(service).request({
      method: request.method,
      path: request.path,
      headers,
      ...(request.body === undefined ? {} : { body: request.body }),
    });
    const forwarded: Record<string, string> = {};
    for (const name of FORWARDED_RESPONSE_HEADERS) {
      const value = response.headers[name];
      if (value !== undefined) forwarded[name] = Array.isArray(value) ? value.join(', ') : value;
    }
    return { status: response.status, headers: forwarded, body: response.body };
  }

  async close(): Promise<void> {
    await Promise.all([...this.clients.values()].map((client) => client.close()));
  }
}
