import { createHash, timingSafeEqual } from 'node:crypto';
import { randomBase62 } from '@svc/ids';

export type Environment = 'sandbox' | 'production';

const PREFIX: Record<Environment, string> = { sandbox: 'svc_test_', production: 'svc_live_' };
const KEY_PATTERN = /^svc_(test|live)_[0-9A-Za-z]{32,64}$/;

/** A new secret key for an environment: `svc_test_<40 base62>` or `svc_live_<…>`. */
export function generateApiKey(environment: Environment): string {
  return `${PREFIX[environment]}${randomBase62(40)}`;
}

/** The environment a well-formed key belongs to, or null for anything that is not a key. */
export function environmentOfKey(key: string): Environment | null {
  const match = KEY_PATTERN.exec(key);
  if (match === null) return null;
  return match[1] === 'test' ? 'sandbox' : 'production';
}

/** The stored form of a key. Keys carry 238 bits of randomness, so a fast hash is enough. */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** Constant-time comparison of two hex digests of equal length. */
export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

/** Constant-time comparison of two secrets of any length (the operator token). */
export function sameSecret(given: string, expected: string): boolean {
  return sameHash(hashApiKey(given), hashApiKey(expected));
}

/** The bearer token of an Authorization header, or null. */
export function bearerToken(header: string | undefined): string | null {
  if (header === undefined) return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

/** Hours a rotated key keeps working (docs/spec/contracts.md §3). */
export const ROTATION_OVERLAP_MS = 24 * 60 * 60 * 1000;
