import type { z } from 'zod';

export type HttpMethod = 'get' | 'post' | 'patch' | 'put' | 'delete';

/** The services the gateway routes to. */
export type ServiceName =
  'gateway' | 'registry' | 'detection' | 'licensing' | 'enforcement' | 'billing' | 'webhook-dispatcher';

/** An extra rate-limit bucket an operation counts against (contracts.md §4). */
export type RateBucket = 'usage-report' | 'webhook-test';

/**
 * One public operation: where it is served, who owns it, what it accepts and returns. The same
 * zod schemas validate requests in the owning service and generate the OpenAPI document.
 */
export interface Operation {
  id: string;
  method: HttpMethod;
  /** Express-style path with `:param` segments, e.g. `/v1/svc/claims/:id`. */
  path: string;
  service: ServiceName;
  /** The path on the owning service when the gateway translates (second family); default `path`. */
  upstreamPath?: string;
  summary: string;
  tags: string[];
  request?: {
    params?: z.ZodType;
    query?: z.ZodType;
    body?: z.ZodType;
  };
  responses: Record<number, { description: string; schema?: z.ZodType }>;
  bucket?: RateBucket;
  /** Sandbox keys only (test helpers). */
  sandboxOnly?: boolean;
  /** `operator`: an `/admin` operation, authenticated with ADMIN_TOKEN instead of an API key. */
  auth?: 'key' | 'operator';
}

const operations: Operation[] = [];

/** Declares a public operation; later services add theirs here. */
export function defineOperation(operation: Operation): Operation {
  if (operations.some((o) => o.id === operation.id))
    throw new Error(`Operation ${operation.id} declared twice`);
  operations.push(operation);
  return operation;
}

/** Every declared operation. */
export function declaredOperations(): readonly Operation[] {
  return operations;
}
