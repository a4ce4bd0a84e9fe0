/** A fixed window of a rate-limit bucket. */
export interface Window {
  start: Date;
  end: Date;
}

/** The window of `seconds` length containing `now` (minute, hour and UTC day windows align to the epoch). */
export function windowOf(now: Date, seconds: number): Window {
  const ms = seconds * 1000;
  const start = Math.floor(now.getTime() / ms) * ms;
  return { start: new Date(start), end: new Date(start + ms) };
}

export interface BucketState {
  limit: number;
  count: number;
  window: Window;
}

export interface RateDecision {
  allowed: boolean;
  /** Headers of every response (per-minute bucket, or the bucket that refused). */
  headers: Record<string, string>;
  /** When refused: the details of docs/spec/contracts.md §2. */
  refusal?: { limit: number; remaining: 0; resetAt: string; retryAfter: number };
}

/** Decides a request from the counts after it was counted; the first bucket over its limit refuses. */
export function decide(now: Date, minute: BucketState, others: BucketState[]): RateDecision {
  const over = [minute, ...others].find((bucket) => bucket.count > bucket.limit);
  const shown = over ?? minute;
  const remaining = over === undefined ? Math.max(0, minute.limit - minute.count) : 0;
  const headers = {
    'X-RateLimit-Limit': String(minute.limit),
    'X-RateLimit-Remaining': String(remaining),
    'X-RateLimit-Reset': String(Math.ceil(shown.window.end.getTime() / 1000)),
  };
  if (over === undefined) return { allowed: true, headers };
  const retryAfter = Math.max(1, Math.ceil((over.window.end.getTime() - now.getTime()) / 1000));
  return {
    allowed: false,
    headers,
    refusal: { limit: over.limit, remaining: 0, resetAt: over.window.end.toISOString(), retryAfter },
  };
}
