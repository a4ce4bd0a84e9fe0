import type { ConsumerStats } from './message-bus';

/** How long to hold a failed message before it is redelivered. */
export interface RetryBackoff {
  /** Delay after the first failure; doubled after each further one (default 100 ms). */
  initialMs?: number;
  /** Ceiling of the delay (default 2000 ms). */
  maxMs?: number;
}

/**
 * The pace of retries while a dependency is unavailable: soon after a blip, then once a second
 * for as long as the outage lasts, so a consumer resumes within about a second of the dependency
 * returning without spinning meanwhile.
 */
export const TRANSIENT_RETRY_BACKOFF: Required<RetryBackoff> = { initialMs: 100, maxMs: 1000 };

/** The delay before redelivering a message whose `attempt`-th delivery failed. */
export function retryDelayMs(attempt: number, backoff: RetryBackoff = {}): number {
  const initial = backoff.initialMs ?? 100;
  const max = backoff.maxMs ?? 2000;
  return Math.min(max, initial * 2 ** Math.max(0, attempt - 1));
}

/** Resolves after `ms`, or at once when `signal` aborts (so that closing a bus is not held up). */
export function abortableSleep(ms: number, signal: AbortSignal): Promise<void> {
  if (ms <= 0 || signal.aborted) return Promise.resolve();
  return new Promise((resolve) => {
    const timer = setTimeout(done, ms);
    function done(): void {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

/** A short, single-line description of a thrown value, for logs and dead-letter reasons. */
export function describeError(err: unknown): string {
  const text = err instanceof Error ? `${err.name}: ${err.message}` : String(err);
  // Dead-letter reasons travel in AMQP headers, whose table is limited to 64 KiB.
  return text.length > 1000 ? `${text.slice(0, 1000)}…` : text;
}

/** Per-queue counters of a bus's consumers (see `ConsumerStats`). */
export class ConsumerCounters {
  private readonly byQueue = new Map<string, ConsumerStats>();

  /** The live counters of `queue` (created at zero). */
  of(queue: string): ConsumerStats {
    let stats = this.byQueue.get(queue);
    if (stats === undefined) {
      stats = { transientRetries: 0, failedRetries: 0, deadLettered: 0 };
      this.byQueue.set(queue, stats);
    }
    return stats;
  }

  /** A copy of the counters of `queue`. */
  snapshot(queue: string): ConsumerStats {
    return { ...this.of(queue) };
  }
}
