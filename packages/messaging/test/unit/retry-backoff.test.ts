import { retryDelayMs, TRANSIENT_RETRY_BACKOFF } from '../../src/retry-backoff';

describe('retryDelayMs', () => {
  it('when failures repeat, then the delay doubles from the initial delay up to the cap', () => {
    const delays = [1, 2, 3, 4, 5, 6].map((attempt) =>
      retryDelayMs(attempt, { initialMs: 100, maxMs: 2000 }),
    );

    expect(delays).toEqual([100, 200, 400, 800, 1600, 2000]);
  });

  it('when a dependency stays down for hours, then transient retries settle at one a second (resume within 1 s, no spin)', () => {
    const delays = [1, 2, 3, 4, 5, 100, 100_000].map((streak) =>
      retryDelayMs(streak, TRANSIENT_RETRY_BACKOFF),
    );

    expect(delays).toEqual([100, 200, 400, 800, 1000, 1000, 1000]);
  });

  it('when no backoff is given, then the default is 100 ms doubling up to 2 s', () => {
    expect(retryDelayMs(1)).toBe(100);
    expect(retryDelayMs(50)).toBe(2000);
  });
});
