import { createSecretKey, type KeyObject } from 'node:crypto';
import jwt from 'jsonwebtoken';
import { z } from 'zod';
import { AppError } from '@svc/errors';
import { systemClock } from '@svc/clock';

/** What the gateway tells a service about the caller (docs/spec/contracts.md §5). */
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

// jsonwebtoken first tries a plain string as a public key, which costs about half a millisecond
// per call; a secret KeyObject, made once per secret, goes straight to HMAC.
const secretKeys = new Map<string, KeyObject>();
function secretKey(secret: string): KeyObject {
  let key = secretKeys.get(secret);
  if (key === undefined) {
    key = createSecretKey(Buffer.from(secret, 'utf8'));
    secretKeys.set(secret, key);
  }
  return key;
}

// The gateway reuses a token for minutes, so a service sees the same few tokens again and again:
// a verified token is remembered until it expires (the signature check is what it saves).
const MAX_VERIFIED = 5000;
const verified = new Map<string, { claims: InternalClaims; exp: number; secret: string }>();

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
  return jwt.sign(payload, secretKey(secret), {
    algorithm: 'HS256',
    issuer: INTERNAL_TOKEN_ISSUER,
    audience: INTERNAL_TOKEN_AUDIENCE,
  });
}

/** Verifies an internal token and returns its claims; throws AppError UNAUTHORIZED on anything wrong. */
export function verifyInternalToken(secret: string, token: string, now?: Date): InternalClaims {
  const nowSeconds = Math.floor((now ?? systemClock.now()).getTime() / 1000);
  const cached = verified.get(token);
  if (
    cached !== undefined &&
    cached.secret === secret &&
    nowSeconds <= cached.exp + CLOCK_TOLERANCE_SECONDS
  ) {
    return { ...cached.claims };
  }
  let decoded: unknown;
  try {
    decoded = jwt.verify(token, secretKey(secret), {
      // Pinning the algorithm refuses `alg: none` and key-confusion tricks.
      algorithms: ['HS256'],
      issuer: INTERNAL_TOKEN_ISSUER,
      audience: INTERNAL_TOKEN_AUDIENCE,
      clockTimestamp: nowSeconds,
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
  const exp = (decoded as { exp?: unknown }).exp;
  if (typeof exp === 'number') {
    if (verified.size >= MAX_VERIFIED) verified.clear();
    verified.set(token, { claims, exp, secret });
  }
  return { ...claims };
}
