import type { ErrorCode } from '@svc/errors';
import type { z } from 'zod';

export type HttpMethod = 'get' | 'post' | 'patch' | 'put' | 'delete';

/** The services the gateway routes to. */
export type ServiceName =
  'gateway' | 'registry' | 'detection' | 'licensing' | 'enforcement' | 'billing' | 'webhook-dispatcher';

/** An extra rate-limit bucket an operation counts against (docs/spec/contracts.md §4). */
export type RateBucket = 'usage-report' | 'webhook-test';

/**
 * One public operation: where it is served, who owns it, what it accepts and returns. The same
 * zod schemas validate requests in the owning service and generate the OpenAPI document.
 */
/** A success answer: its body's schema and, for the reference, an example that schema accepts. */
export interface OperationResponse {
  description: string;
  schema?: z.ZodType;
  /** The body of a typical answer (checked against `schema` by the contracts' tests). */
  example?: unknown;
  /** Default application/json; another type (a JWT) documents a string body. */
  mediaType?: string;
}

export interface Operation {
  id: string;
  method: HttpMethod;
  /** Express-style path with `:param` segments, e.g. `/v1/svc/claims/:id`. */
  path: string;
  service: ServiceName;
  /** The path on the owning service when the gateway translates (second family); default `path`. */
  upstreamPath?: string;
  summary: string;
  /**
   * What a reader of the OpenAPI document needs beyond the summary (rules, side effects, events
   * sent). The document adds what it derives itself: authentication, rate buckets, idempotency.
   */
  description?: string;
  tags: string[];
  request?: {
    params?: z.ZodType;
    query?: z.ZodType;
    body?: z.ZodType;
    /**
     * The body as the OpenAPI document (and so the SDK's types) describes it, when `body` checks
     * in a refinement what JSON Schema can say as a shape (a box's policyConfig, whose shape
     * depends on its policy). It must accept exactly what `body` accepts: the contracts' tests
     * compare the two.
     */
    documentedBody?: z.ZodType;
    /** A typical body, for the reference (checked against the body's schema by the contracts' tests). */
    example?: unknown;
  };
  responses: Record<number, OperationResponse>;
  /**
   * The error codes this operation raises itself, beyond those every operation of its kind can
   * answer (derived by the OpenAPI builder: authentication, rate limits, validation, NOT_FOUND for
   * a path id, IDEMPOTENCY_CONFLICT for a write, FORBIDDEN for a sandbox helper, 500, 503).
   */
  errors?: ErrorCode[];
  bucket?: RateBucket;
  /** Sandbox keys only (test helpers). */
  sandboxOnly?: boolean;
  /**
   * `operator`: an `/admin` operation, authenticated with ADMIN_TOKEN instead of an API key;
   * `public`: served to anyone, without a key and not counted (the OpenAPI document, signing up
   * and in); `session`: a dashboard operation, authenticated with the session cookie (ADR 0024).
   */
  auth?: 'key' | 'operator' | 'public' | 'session';
  /**
   * How long the gateway waits for the owning service's answer before it answers 503
   * SERVICE_UNAVAILABLE; default DEFAULT_OPERATION_TIMEOUT_MS. Reads that callers make inline
   * (the identity check) fail fast; writes get a budget a client can live with.
   */
  timeoutMs?: number;
}

/** The gateway's budget for an operation that declares none (a write's budget). */
export const DEFAULT_OPERATION_TIMEOUT_MS = 10_000;
/** The budget of the inline identity check: a stalled detection answers 503 within 2 s; a picture's faces take up to FACE_CHECK_TIMEOUT_MS of it (ADR 0026). */
export const IDENTITY_CHECK_TIMEOUT_MS = 1900;
/** The budget of a batch of up to 100 checks. */
export const IDENTITY_BATCH_TIMEOUT_MS = 5000;

/**
 * Declares a public operation (typed; no side effect). The gateway, the OpenAPI document and the
 * fuzz suite read the explicit list `allOperations` of the package's index, not a registry. Its
 * own type is kept, its schemas' included, so `respond` (@svc/service-kit) checks a body against it.
 */
export function defineOperation<O extends Operation>(operation: O): O {
  return operation;
}
