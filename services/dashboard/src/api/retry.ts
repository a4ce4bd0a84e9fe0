import { ApiError } from './http';

// What the dashboard does when a call fails (issue #32): a spent request budget (429) is waited
// out, as long as the API's Retry-After says, and asked again; a 503 or a lost connection is
// retried with backoff; any other answer the API gave on purpose (4xx) is shown at once.

/** Tries after a 429 (each waits its Retry-After): enough to cross a minute's window twice. */
export const RATE_LIMIT_RETRIES = 3;
/** The longest wait the dashboard sits through; a day's budget spent is shown instead. */
export const LONGEST_WAIT_S = 90;

/** TanStack Query's retry: `failures` counts the failures before this one (0 at the first). */
export function shouldRetry(failures: number, error: unknown): boolean {
  if (error instanceof ApiError && error.rateLimited) {
    return failures < RATE_LIMIT_RETRIES && (error.retryAfterSeconds ?? 1) <= LONGEST_WAIT_S;
  }
  return !(error instanceof ApiError && error.status < 500) && failures < 2;
}

export function retryDelayMs(failures: number, error: unknown): number {
  if (error instanceof ApiError && error.retryAfterSeconds !== undefined)
    return error.retryAfterSeconds * 1000;
  return Math.min(1000 * 2 ** failures, 30_000);
}
