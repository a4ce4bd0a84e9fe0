import { AppError, isAppError } from '@svc/errors';
import type { Clock } from '@svc/clock';
import { OPERATOR_PLATFORM_ID, type InternalClaims } from '@svc/service-kit';
import type { Caller } from './authenticate-request.use-case';
import {
  IDEMPOTENCY_ABANDON_MS,
  IDEMPOTENCY_KEY_PATTERN,
  IDEMPOTENCY_TTL_MS,
  isIdempotentCandidate,
  requestFingerprint,
  shouldStore,
} from './idempotency';
import type { IdempotencyStore } from './ports';
import type { MatchedRoute } from './route-table';
import type { UpstreamClient } from './upstream.client';

export interface DispatchInput {
  caller: Caller;
  matched: MatchedRoute | null;
  method: string;
  /** Path and query as received. */
  url: string;
  search: string;
  body: unknown;
  idempotencyKey: string | undefined;
  requestId: string;
}

export interface DispatchResult {
  status: number;
  headers: Record<string, string>;
  body: Buffer | string;
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
 * After authentication: find the owner of the route, refuse what the key may not do, replay or
 * reserve an Idempotency-Key, forward, and keep the answer for replays.
 */
export async function dispatchRequest(
  deps: { upstreams: UpstreamClient; idempotency: IdempotencyStore; clock: Clock },
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
  if (key !== undefined) {
    if (!IDEMPOTENCY_KEY_PATTERN.test(key)) {
      throw new AppError('VALIDATION_ERROR', 'Idempotency-Key must be 1 to 255 printable ASCII characters', {
        details: { fields: [{ field: 'Idempotency-Key', message: 'invalid' }] },
      });
    }
    const reservation = await deps.idempotency.reserve(
      caller.platformId,
      key,
      requestFingerprint(input.method, input.url, input.body),
      deps.clock.now(),
      { ttlMs: IDEMPOTENCY_TTL_MS, abandonAfterMs: IDEMPOTENCY_ABANDON_MS },
    );
    if (reservation.kind === 'replay') {
      return {
        status: reservation.response.status,
        headers: { ...reservation.response.headers, 'Idempotent-Replayed': 'true' },
        body: reservation.response.body,
      };
    }
    if (reservation.kind === 'conflict') {
      throw new AppError(
        'IDEMPOTENCY_CONFLICT',
        reservation.reason === 'different_request'
          ? 'This Idempotency-Key was already used with a different request'
          : 'A request with this Idempotency-Key is still being processed; retry shortly',
      );
    }
  }

  try {
    const response = await deps.upstreams.forward(matched.route.service, claimsOf(caller), {
      method: input.method,
      path: matched.upstreamPath + input.search,
      requestId: input.requestId,
      ...(input.body === undefined ? {} : { body: JSON.stringify(input.body) }),
    });
    if (key !== undefined) {
      if (shouldStore(response.status)) {
        await deps.idempotency.complete(caller.platformId, key, {
          status: response.status,
          headers: response.headers,
          body: response.body.toString('utf8'),
        });
      } else {
        await deps.idempotency.release(caller.platformId, key);
      }
    }
    return response;
  } catch (err) {
    // A timed-out call may have run: keep the reservation (a retry gets 409 until it is abandoned).
    // Otherwise nothing was carried out and the key may be used again at once.
    if (key !== undefined && !mayHaveRun(err)) {
      await deps.idempotency.release(caller.platformId, key).catch(() => undefined);
    }
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
  deps: { upstreams: UpstreamClient; environment: 'sandbox' | 'production' },
  input: {
    matched: MatchedRoute | null;
    method: string;
    url: string;
    search: string;
    body: unknown;
    requestId: string;
  },
): Promise<DispatchResult> {
  const { matched } = input;
  if (matched === null || matched.route.auth !== 'operator' || matched.route.service === 'gateway') {
    throw new AppError('NOT_FOUND', `No route ${input.method} ${input.url.split('?')[0] ?? ''}`);
  }
  if (matched.problem !== undefined) throw matched.problem;
  return deps.upstreams.forward(matched.route.service, operatorClaims(deps.environment), {
    method: input.method,
    path: matched.upstreamPath + input.search,
    requestId: input.requestId,
    ...(input.body === undefined ? {} : { body: JSON.stringify(input.body) }),
  });
}
