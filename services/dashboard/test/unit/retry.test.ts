import { ApiError } from '../../src/api/http';
import { LONGEST_WAIT_S, RATE_LIMIT_RETRIES, retryDelayMs, shouldRetry } from '../../src/api/retry';

const rateLimited = (seconds: number) =>
  new ApiError(429, 'RATE_LIMITED', 'too many requests', {}, undefined, seconds);

/** How many times a query asks again, as TanStack Query counts failures (0 at the first). */
function retriesOf(error: unknown): number {
  let failures = 0;
  while (shouldRetry(failures, error) && failures < 100) failures += 1;
  return failures;
}

describe('the dashboard’s retries (#32)', () => {
  it('when the request budget is spent, then it asks again after each Retry-After, three times', () => {
    expect(retriesOf(rateLimited(20))).toBe(RATE_LIMIT_RETRIES);
    expect(RATE_LIMIT_RETRIES).toBe(3);
    expect(retryDelayMs(0, rateLimited(20))).toBe(20_000);
  });

  it('when the wait is longer than it sits through (a day’s budget), then it does not ask again', () => {
    expect(retriesOf(rateLimited(LONGEST_WAIT_S))).toBe(3);
    expect(retriesOf(rateLimited(LONGEST_WAIT_S + 1))).toBe(0);
  });

  it('when the API answered a 4xx on purpose, then it is shown at once; a 503 or a lost connection is retried twice', () => {
    expect(retriesOf(new ApiError(422, 'VALIDATION_FAILED', 'bad', {}, undefined))).toBe(0);
    expect(retriesOf(new ApiError(404, 'NOT_FOUND', 'gone', {}, undefined))).toBe(0);
    expect(retriesOf(new ApiError(503, 'UNAVAILABLE', 'busy', {}, undefined))).toBe(2);
    expect(retriesOf(new TypeError('Failed to fetch'))).toBe(2);
    expect(retryDelayMs(0, new TypeError('Failed to fetch'))).toBe(1000);
    expect(retryDelayMs(1, new TypeError('Failed to fetch'))).toBe(2000);
  });
});
