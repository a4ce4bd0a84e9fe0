import { createHash } from 'node:crypto';

export { IDEMPOTENCY_KEY_PATTERN, IDEMPOTENCY_TTL_MS } from '@svc/service-kit';

/**
 * What a binding's fingerprint starts with when it is taken over the body's bytes (ADR 0041); a
 * binding without it was taken by an older gateway over the re-serialised JSON.
 */
export const BYTES_FINGERPRINT_PREFIX = 'b1:';

/**
 * Which request an Idempotency-Key is bound to: the method, the path and query as received and
 * the body's bytes as received (the gateway forwards those bytes and never parses them).
 */
export function requestFingerprintOfBytes(method: string, url: string, body: Buffer | undefined): string {
  const hash = createHash('sha256').update(method).update('\n').update(url).update('\n');
  if (body !== undefined) hash.update(body);
  return BYTES_FINGERPRINT_PREFIX + hash.digest('hex');
}

/** Methods an Idempotency-Key applies to. */
export function isIdempotentCandidate(method: string): boolean {
  return method === 'POST' || method === 'PATCH' || method === 'DELETE';
}
