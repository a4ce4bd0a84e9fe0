import type { KeyScope, MemberRole } from '@svc/contracts/gateway';
import { AppError } from '@svc/errors';
import type { Clock } from '@svc/clock';
import type { Queryable } from '@svc/ports';
import { bearerToken, environmentOfKey, hashApiKey, sameHash, type Environment } from './api-key';
import { EXTRA_BUCKETS, limitsFor, type Plan } from './plans';
import { decide, windowOf, type BucketState, type RateDecision } from './rate-limit';
import type { KeyAuthenticationStore } from './ports';

export type ExtraBucket = keyof typeof EXTRA_BUCKETS;

export interface Caller {
  platformId: string;
  keyId: string;
  environment: Environment;
  plan: Plan;
  name: string;
  domain: string | null;
  /**
   * The key's scope (#32), or a read-only member's session's (ADR 0034); otherwise none: everything
   * its kind may reach.
   */
  scope?: KeyScope;
  /** A dashboard session's member role (ADR 0034); a key has none. */
  memberRole?: MemberRole;
}

export interface AuthenticatedRequest {
  caller: Caller;
  rate: RateDecision;
}

const HOW_TO = 'Send Authorization: Bearer svc_test_… (sandbox) or svc_live_… (production).';

function unauthorized(message: string): AppError {
  return new AppError('UNAUTHORIZED', message, { details: HOW_TO });
}

/**
 * The edge's story for every public request: the key must exist, be of this deployment's
 * environment, not be revoked or past its rotation overlap; then the request is counted against
 * the key's budget and refused when a bucket is over its limit.
 */
export async function authenticateRequest(
  deps: { db: Queryable; store: KeyAuthenticationStore; clock: Clock; deploymentEnvironment: Environment },
  input: { authorization: string | undefined; extraBucket?: ExtraBucket | undefined },
): Promise<AuthenticatedRequest> {
  const token = bearerToken(input.authorization);
  if (token === null) throw unauthorized('Missing API key');
  const keyEnvironment = environmentOfKey(token);
  if (keyEnvironment === null) throw unauthorized('Malformed API key');
  if (keyEnvironment !== deps.deploymentEnvironment) {
    throw new AppError(
      'WRONG_ENVIRONMENT',
      `A ${keyEnvironment} key cannot be used against this deployment`,
      {
        details: `This deployment is ${deps.deploymentEnvironment}; use a ${
          deps.deploymentEnvironment === 'sandbox' ? 'svc_test_' : 'svc_live_'
        } key.`,
      },
    );
  }

  const now = deps.clock.now();
  const minute = windowOf(now, 60);
  const day = windowOf(now, 86_400);
  const extra = input.extraBucket === undefined ? undefined : EXTRA_BUCKETS[input.extraBucket];
  const extraWindow = extra === undefined ? undefined : windowOf(now, extra.windowSeconds);
  const keyHash = hashApiKey(token);
  const found = await deps.store.authenticateAndCount(deps.db, keyHash, now, deps.deploymentEnvironment, {
    minuteStart: minute.start,
    dayStart: day.start,
    ...(input.extraBucket === undefined || extraWindow === undefined
      ? {}
      : { extra: { bucket: input.extraBucket, windowStart: extraWindow.start } }),
  });

  if (found === null || !sameHash(found.keyHash, keyHash)) throw unauthorized('Unknown API key');
  if (found.environment !== deps.deploymentEnvironment) {
    throw new AppError('WRONG_ENVIRONMENT', 'This key belongs to the other environment', {
      details: `This deployment is ${deps.deploymentEnvironment}.`,
    });
  }
  if (found.revokedAt !== null) {
    throw new AppError('KEY_REVOKED', 'This API key was revoked', {
      details: 'Use the key issued when it was revoked.',
    });
  }
  if (found.expiresAt !== null && found.expiresAt.getTime() <= now.getTime()) {
    throw new AppError('KEY_EXPIRED', 'This API key expired after rotation', {
      details: `The 24-hour overlap ended at ${found.expiresAt.toISOString()}; use the rotated key.`,
    });
  }

  const limits = limitsFor(found.plan, found.storedLimits);
  const others: BucketState[] = [{ limit: limits.perDay, count: found.dayCount ?? 0, window: day }];
  if (extra !== undefined && extraWindow !== undefined) {
    others.push({ limit: extra.limit, count: found.extraCount ?? 0, window: extraWindow });
  }
  const rate = decide(
    now,
    { limit: limits.perMinute, count: found.minuteCount ?? 0, window: minute },
    others,
  );
  return {
    caller: {
      platformId: found.platformId,
      keyId: found.keyId,
      environment: found.environment,
      plan: found.plan,
      name: found.platformName,
      domain: found.domain,
      scope: found.scope,
    },
    rate,
  };
}

/** The 429 of a refused request (docs/spec/contracts.md §2 and §4). */
export function rateLimitedError(rate: RateDecision): AppError {
  const refusal = rate.refusal;
  const retryAfter = refusal?.retryAfter ?? 60;
  return new AppError('RATE_LIMITED', 'Rate limit exceeded; retry after the window resets', {
    details: refusal ?? { limit: 0, remaining: 0, resetAt: '', retryAfter },
    headers: { ...rate.headers, 'Retry-After': String(retryAfter) },
  });
}
