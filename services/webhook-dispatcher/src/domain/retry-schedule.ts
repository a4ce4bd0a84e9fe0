// When a failed delivery is tried again. Exponential backoff with jitter: 5 s, 5 min, 30 min,
// 2 h, 5 h, then every 10 h, 12 attempts over about three days (docs/spec/contracts.md §10); sandbox
// divides every delay by `timeDivisor` (60 by default: the whole schedule in about an hour).

const SECOND = 1000;
const MINUTE = 60 * SECOND;
const HOUR = 60 * MINUTE;

/** Delay before attempt n+1 after the n-th failed attempt (index n-1). 11 retries after the first attempt. */
export const RETRY_DELAYS_MS: readonly number[] = [
  5 * SECOND,
  5 * MINUTE,
  30 * MINUTE,
  2 * HOUR,
  5 * HOUR,
  10 * HOUR,
  10 * HOUR,
  10 * HOUR,
  10 * HOUR,
  10 * HOUR,
  10 * HOUR,
];

export interface RetryPolicy {
  delaysMs: readonly number[];
  /** Every delay (and the breaker cool-down and the disable threshold) is divided by this. */
  timeDivisor: number;
  /** ± this share of each delay, at random (0.1: 90 % to 110 %). */
  jitter: number;
  /** Consecutive failures that open an endpoint's circuit. */
  breakerThreshold: number;
  /** How long an open circuit stays open before one trial attempt (before the divisor). */
  breakerCooldownMs: number;
  /** An endpoint failing without a success for this long is disabled (before the divisor). */
  disableAfterMs: number;
}

export function defaultRetryPolicy(environment: 'sandbox' | 'production', timeDivisor?: number): RetryPolicy {
  return {
    delaysMs: RETRY_DELAYS_MS,
    timeDivisor: timeDivisor ?? (environment === 'production' ? 1 : 60),
    jitter: 0.1,
    breakerThreshold: 5,
    breakerCooldownMs: MINUTE,
    disableAfterMs: 3 * 24 * HOUR,
  };
}

/**
 * The delay before the next attempt after `failedAttempts` failures, or null when the schedule
 * is exhausted (the delivery is failed). `random` is in [0, 1).
 */
export function retryDelayMs(
  failedAttempts: number,
  policy: RetryPolicy,
  random: () => number = Math.random,
): number | null {
  const base = policy.delaysMs[failedAttempts - 1];
  if (base === undefined || failedAttempts < 1) return null;
  const factor = 1 + policy.jitter * (2 * random() - 1);
  return Math.max(0, Math.round((base / policy.timeDivisor) * factor));
}

/** The circuit's cool-down, compressed like the schedule. */
export function breakerCooldownMs(policy: RetryPolicy): number {
  return Math.round(policy.breakerCooldownMs / policy.timeDivisor);
}

/** True when an endpoint failing since `failingSince` has failed long enough to be disabled. */
export function failedForTooLong(failingSince: Date, now: Date, policy: RetryPolicy): boolean {
  return now.getTime() - failingSince.getTime() >= policy.disableAfterMs / policy.timeDivisor;
}
