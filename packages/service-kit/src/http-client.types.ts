import type { Registry } from 'prom-client';
import type { Logger } from '@svc/logger';

// The HTTP client's options, requests and answers (createHttpClient in http-client.ts).

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
