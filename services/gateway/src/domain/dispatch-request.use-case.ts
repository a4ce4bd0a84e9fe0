import { AppError, isAppError } from '@svc/errors';
import type { Clock } from '@svc/clock';
import type { Queryable } from '@svc/ports';
import { isReplayable, OPERATOR_PLATFORM_ID, type InternalClaims } from '@svc/service-kit';
import type { Caller } from './authenticate-request.use-case';
import {
  IDEMPOTENCY_KEY_PATTERN,
  IDEMPOTENCY_TTL_MS,
  isIdempotentCandidate,
  requestFingerprintOfBytes,
} from './idempotency';
import type { IdempotencyBinding, IdempotencyStore } from './ports';
import type { MatchedRoute, RouteTable } from './route-table';
import type { UpstreamClient } from './upstream.client';

export interface DispatchInput {
  caller: Caller;
  matched: MatchedRoute | null;
  method: string;
  /** Path and query as received. */
  url: string;
  search: string;
  /** The body's bytes as received (forwarded as they are), undefined without one. */
  body: Buffer | undefined;
  idempotencyKey: string | undefined;
  requestId: string;
}

export interface DispatchResult {
  status: number;
  headers: Record<string, string>;
  body: Buffer | string;
}

/** The query string of a URL as received, `?` included; '' when there is none. */
export function searchOf(url: string): string {
  const queryStart = url.indexOf('?');
  return queryStart === -1 ? '' : url.slice(queryStart);
}

function mayHaveRun(err: unknown): boolean {
  if (!isAppError(err) || err.code !== 'SERVICE_UNAVAILABLE') return true;
  const details = err.details as { reason?: string } | undefined;
  return details?.reason === 'timeout';
}

/** The claims a service receives for an authenticated platform. */
export function claimsOf(caller: Caller): InternalClaims {
  const claims: InternalClaims = {
    platformId: caller.platformId,
    environment: caller.environment,
    keyId: caller.keyId,
    plan: caller.plan,
    platformName: caller.name,
  };
  if (caller.domain !== null) claims.platformDomain = caller.domain;
  return claims;
}

/**
 * After authentication: find the owner of the route, refuse what the key may not do, bind an
 * Idempotency-Key to this request and forward it with the key. The owning service records the key
 * with its write and replays its answer (ADR 0011); the gateway keeps no answers.
 */
export async function dispatchRequest(
  deps: { upstreams: UpstreamClient; hotPathDb: Queryable; idempotency: IdempotencyStore; clock: Clock },
  input: DispatchInput,
): Promise<DispatchResult> {
  const { matched, caller } = input;
  // Operator routes are reached only through /admin; the gateway's own routes never get here.
  if (matched === null || matched.route.auth === 'operator' || matched.route.service === 'gateway') {
    throw new AppError('NOT_FOUND', `No route ${input.method} ${input.url.split('?')[0] ?? ''}`);
  }
  if (matched.problem !== undefined) throw matched.problem;
  if (matched.route.sandboxOnly === true && caller.environment !== 'sandbox') {
    throw new AppError('FORBIDDEN', 'Test helpers are available to sandbox keys only');
  }

  const key = isIdempotentCandidate(input.method) ? input.idempotencyKey : undefined;
  let binding: { key: string; fingerprint: string; bound: IdempotencyBinding | 'unknown' } | undefined;
  if (key !== undefined) {
    if (!IDEMPOTENCY_KEY_PATTERN.test(key)) {
      throw new AppError('VALIDATION_ERROR', 'Idempotency-Key must be 1 to 255 printable ASCII characters', {
        details: { fields: [{ field: 'Idempotency-Key', message: 'invalid' }] },
      });
    }
    const fingerprint = requestFingerprintOfBytes(input.method, input.url, input.body);
    const bound = await deps.idempotency
      .bind(deps.hotPathDb, caller.platformId, key, fingerprint, deps.clock.now(), IDEMPOTENCY_TTL_MS)
      // The binding only catches a key reused for another route; the owning service still runs the
      // write at most once, so a gateway database blip here must not fail the request.
      .catch((): 'unknown' => 'unknown');
    if (bound === 'different') {
      throw new AppError(
        'IDEMPOTENCY_CONFLICT',
        'This Idempotency-Key was already used with a different request',
        {
          details: { reason: 'different_request' },
        },
      );
    }
    binding = { key, fingerprint, bound };
  }

  // A key that this request bound, for a request that surely did not run: free it for another use.
  const unbind = async (): Promise<void> => {
    if (binding?.bound !== 'new') return;
    await deps.idempotency
      .release(deps.hotPathDb, caller.platformId, binding.key, binding.fingerprint)
      .catch(() => undefined);
  };

  try {
    const response = await deps.upstreams.forward(matched.route.service, claimsOf(caller), {
      method: input.method,
      path: matched.upstreamPath + input.search,
      requestId: input.requestId,
      ...(input.body === undefined ? {} : { body: input.body }),
      ...(key === undefined ? {} : { idempotencyKey: key }),
      ...(matched.route.timeoutMs === undefined ? {} : { timeoutMs: matched.route.timeoutMs }),
    });
    if (!isReplayable(response.status)) await unbind();
    return response;
  } catch (err) {
    // A timed-out call may have run: the key stays bound (the service knows whether it ran).
    if (!mayHaveRun(err)) await unbind();
    throw err;
  }
}

/** The claims a service receives for a call through the operator API. */
export function operatorClaims(environment: 'sandbox' | 'production'): InternalClaims {
  return {
    platformId: OPERATOR_PLATFORM_ID,
    environment,
    keyId: 'operator',
    plan: 'enterprise',
    role: 'operator',
  };
}

/** An operator call (/admin) to the service that owns it, e.g. verifying a claim. */
export async function dispatchOperatorRequest(
  deps: { upstreams: UpstreamClient; environment: 'sandbox' | 'production'; routes: RouteTable },
  input: {
    method: string;
    /** The path alone, for route matching. */
    path: string;
    /** Path and query as received. */
    url: string;
    body: unknown;
    requestId: string;
  },
): Promise<DispatchResult> {
  const matched = deps.routes.match(input.method, input.path);
  if (matched === null || matched.route.auth !== 'operator' || matched.route.service === 'gateway') {
    throw new AppError('NOT_FOUND', `No route ${input.method} ${input.url.split('?')[0] ?? ''}`);
  }
  if (matched.problem !== undefined) throw matched.problem;
  return deps.upstreams.forward(matched.route.service, operatorClaims(deps.environment), {
    method: input.method,
    path: matched.upstreamPath + searchOf(input.url),
    requestId: input.requestId,
    ...(input.body === undefined ? {} : { body: JSON.stringify(input.body) }),
    ...(matched.route.timeoutMs === undefined ? {} : { timeoutMs: matched.route.timeoutMs }),
  });
}
