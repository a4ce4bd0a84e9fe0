import jwt from 'jsonwebtoken';
import { z } from 'zod';
import { AppError } from '@svc/errors';
import { systemClock } from '@svc/clock';

/** What the gateway tells a service about the caller (contracts.md §5). */
export interface InternalClaims {
  platformId: string;
  environment: 'sandbox' | 'production';
  keyId: string;
  plan: 'sandbox' | 'basic' | 'standard' | 'enterprise';
  platformDomain?: string;
  /** The platform's display name (box statistics show it). */
  platformName?: string;
  /** `operator`: the call came through the operator API (/admin), not from a platform's key. */
  role?: 'platform' | 'operator';
}

/** The platform id the gateway puts in an operator's token. */
export const OPERATOR_PLATFORM_ID = 'operator';

export const INTERNAL_TOKEN_ISSUER = 'svc-gateway';
export const INTERNAL_TOKEN_AUDIENCE = 'svc-internal';
const DEFAULT_TTL_SECONDS = 300;
// Pods read different machine clocks; a few seconds of skew must not turn a fresh token away.
const CLOCK_TOLERANCE_SECONDS = 5;

const claimsSchema = z.object({
  platformId: z.string().min(1),
  environment: z.enum(['sandbox', 'production']),
  keyId: z.string().min(1),
  plan: z.enum(['sandbox', 'basic', 'standard', 'enterprise']),
  platformDomain: z.string().min(1).optional(),
  platformName: z.string().min(1).optional(),
  role: z.enum(['platform', 'operator']).optional(),
});

/** Signs a short-lived HS256 internal token (issuer svc-gateway, audience svc-internal) carrying `claims`. */
export function signInternalToken(
  secret: string,
  claims: InternalClaims,
  options: { ttlSeconds?: number; now?: Date } = {},
): string {
  const iat = Math.floor((options.now ?? systemClock.now()).getTime() / 1000);
  const payload: Record<string, unknown> = {
    platformId: claims.platformId,
    environment: claims.environment,
    keyId: claims.keyId,
    plan: claims.plan,
    // iat and exp are set here rather than by jsonwebtoken so that `now` (a test or sandbox instant) rules both.
    iat,
    exp: iat + (options.ttlSeconds ?? DEFAULT_TTL_SECONDS),
  };
  if (claims.platformDomain !== undefined) payload.platformDomain = claims.platformDomain;
  if (claims.platformName !== undefined) payload.platformName = claims.platformName;
  if (claims.role !== undefined) payload.role = claims.role;
  return jwt.sign(payload, secret, {
    algorithm: 'HS256',
    issuer: INTERNAL_TOKEN_ISSUER,
    audience: INTERNAL_TOKEN_AUDIENCE,
  });
}

/** Verifies an internal token and returns its claims; throws AppError UNAUTHORIZED on anything wrong. */
export function verifyInternalToken(secret: string, token: string, now?: Date): InternalClaims {
  let decoded: unknown;
  try {
    decoded = jwt.verify(token, secret, {
      // Pinning the algorithm refuses `alg: none` and key-confusion tricks.
      algorithms: ['HS256'],
      issuer: INTERNAL_TOKEN_ISSUER,
      audience: INTERNAL_TOKEN_AUDIENCE,
      clockTimestamp: Math.floor((now ?? systemClock.now()).getTime() / 1000),
      clockTolerance: CLOCK_TOLERANCE_SECONDS,
    });
  } catch (err) {
    const expired = err instanceof jwt.TokenExpiredError;
    throw new AppError('UNAUTHORIZED', expired ? 'Internal token expired' : 'Invalid internal token', {
      cause: err,
    });
  }
  const parsed = claimsSchema.safeParse(decoded);
  if (!parsed.success) {
    throw new AppError('UNAUTHORIZED', 'Internal token lacks required claims', { cause: parsed.error });
  }
  const { platformId, environment, keyId, plan, platformDomain, platformName, role } = parsed.data;
  const claims: InternalClaims = { platformId, environment, keyId, plan };
  if (platformDomain !== undefined) claims.platformDomain = platformDomain;
  if (platformName !== undefined) claims.platformName = platformName;
  if (role !== undefined) claims.role = role;
  return claims;
}
