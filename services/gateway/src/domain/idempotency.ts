export { IDEMPOTENCY_KEY_PATTERN, IDEMPOTENCY_TTL_MS, requestFingerprint } from '@svc/service-kit';

/** Methods an Idempotency-Key applies to. */
export function isIdempotentCandidate(method: string): boolean {
  return method === 'POST' || method === 'PATCH' || method === 'DELETE';
}
