import {
  RETRY_DELAYS_MS,
  breakerCooldownMs,
  defaultRetryPolicy,
  failedForTooLong,
  retryDelayMs,
} from '../../src/domain/retry-schedule';

describe('retry schedule', () => {
  const production = defaultRetryPolicy('production');

  it('when attempts fail, then the delays grow 5 s, 5 min, 30 min, 2 h, 5 h, then 10 h', () => {
    const middle = () => 0.5; // no jitter
    expect([1, 2, 3, 4, 5, 6, 7].map((n) => retryDelayMs(n, production, middle))).toEqual([
      5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000,
    ]);
  });

  it('when the schedule is spent, then there is no next attempt (failed), after about three days', () => {
    expect(retryDelayMs(RETRY_DELAYS_MS.length + 1, production)).toBeNull();
    expect(retryDelayMs(0, production)).toBeNull();
    const totalHours = RETRY_DELAYS_MS.reduce((a, b) => a + b, 0) / 3_600_000;
    expect(totalHours).toBeGreaterThan(60);
    expect(totalHours * 1.1).toBeLessThan(75);
  });

  it('when jitter applies, then every delay stays within ±10 %', () => {
    for (let n = 1; n <= RETRY_DELAYS_MS.length; n += 1) {
      const base = RETRY_DELAYS_MS[n - 1] ?? 0;
      expect(retryDelayMs(n, production, () => 0)).toBe(Math.round(base * 0.9));
      expect(retryDelayMs(n, production, () => 0.999999)).toBeLessThanOrEqual(Math.round(base * 1.1));
      for (let i = 0; i < 50; i += 1) {
        const delay = retryDelayMs(n, production) ?? -1;
        expect(delay).toBeGreaterThanOrEqual(Math.floor(base * 0.9));
        expect(delay).toBeLessThanOrEqual(Math.ceil(base * 1.1));
      }
    }
  });

  it('when running in sandbox, then the schedule is divided by 60 (configurable)', () => {
    const sandbox = defaultRetryPolicy('sandbox');
    expect(sandbox.timeDivisor).toBe(60);
    expect(retryDelayMs(1, sandbox, () => 0.5)).toBe(83);
    expect(retryDelayMs(6, sandbox, () => 0.5)).toBe(600_000);
    const hourly = defaultRetryPolicy('sandbox', 3600);
    expect(retryDelayMs(6, hourly, () => 0.5)).toBe(10_000);
    expect(breakerCooldownMs(sandbox)).toBe(1000);
    expect(breakerCooldownMs(production)).toBe(60_000);
  });

  it('when an endpoint has failed for three days (compressed in sandbox), then it is failing too long', () => {
    const since = new Date('2026-01-01T00:00:00Z');
    expect(failedForTooLong(since, new Date('2026-01-03T23:59:00Z'), production)).toBe(false);
    expect(failedForTooLong(since, new Date('2026-01-04T00:00:00Z'), production)).toBe(true);
    expect(failedForTooLong(since, new Date('2026-01-01T01:12:00Z'), defaultRetryPolicy('sandbox'))).toBe(
      true,
    );
  });
});
