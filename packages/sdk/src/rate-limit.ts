/** The key's budget as an answer states it (`X-RateLimit-*`, docs/spec/contracts.md §4). */
export interface RateLimit {
  /** Requests per minute. */
  limit: number;
  remaining: number;
  /** When the minute's budget starts again, Unix seconds. */
  reset: number;
}

/** The `X-RateLimit-*` headers of an answer; undefined when it carries none (no key, or an unknown one). */
export function rateLimitOf(response: Response): RateLimit | undefined {
  const limit = response.headers.get('x-ratelimit-limit');
  const remaining = response.headers.get('x-ratelimit-remaining');
  const reset = response.headers.get('x-ratelimit-reset');
  if (limit === null || remaining === null || reset === null) return undefined;
  return { limit: Number(limit), remaining: Number(remaining), reset: Number(reset) };
}
