import { createHash } from 'node:crypto';

/** Stored responses are replayed for 24 hours (contracts.md §7). */
export const IDEMPOTENCY_TTL_MS = 24 * 60 * 60 * 1000;
/** A reservation whose request never finished (a crashed replica) may be taken over after this. */
export const IDEMPOTENCY_ABANDON_MS = 60 * 1000;
export const IDEMPOTENCY_KEY_PATTERN = /^[\x21-\x7e]{1,255}$/;

/** What makes two requests "the same" for an Idempotency-Key: method, path, query and body. */
export function requestFingerprint(method: string, url: string, body: unknown): string {
  return createHash('sha256')
    .update(method)
    .update('\n')
    .update(url)
    .update('\n')
    .update(body === undefined ? '' : JSON.stringify(body))
    .digest('hex');
}

/** Methods an Idempotency-Key applies to. */
export function isIdempotentCandidate(method: string): boolean {
  return method === 'POST' || method === 'PATCH' || method === 'DELETE';
}

/**
 * Outcomes that did not run the operation are not stored, so the client can retry with the same key:
 * a refused rate limit and an unreachable service.
 */
export function shouldStore(status: number): boolean {
  return status !== 429 && status !== 503;
}
