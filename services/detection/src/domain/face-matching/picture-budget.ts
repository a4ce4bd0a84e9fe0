import { errors } from '@svc/errors';

/** How many pictures one platform may have examined or waiting at once, and how the work is shared. */
export interface PictureBudgetOptions {
  /** Examinations running at once over all platforms (the worker pool's size). */
  concurrency: number;
  /** One platform's pictures running or waiting at most; more are refused with 429. */
  perPlatform: number;
  /** The clock (the refusal's resetAt). */
  now: () => Date;
}

interface Waiting {
  start: () => void;
  abandon: () => void;
}

/**
 * Shares the picture workers among platforms (docs/spec/contracts.md §15 and §17): each platform
 * has its own queue, the workers take the queues in turn (one picture of each platform with work
 * waiting, then again), and a platform with `perPlatform` pictures running or waiting is refused
 * at once (429 RATE_LIMITED with Retry-After) instead of slowing anyone else. So one platform's
 * heavy or numerous pictures wait behind each other, never in front of another platform's.
 */
export class PictureBudget {
  private running = 0;
  private readonly queues = new Map<string, Waiting[]>();
  private readonly held = new Map<string, number>();
  // Fair queueing by turns: a platform's turn count moves past the latest turn given whenever one
  // of its pictures starts, and the platform waiting with the lowest count goes next. A platform
  // that has just been served so waits behind every other with work waiting.
  private readonly turns = new Map<string, number>();
  private lastTurn = 0;

  constructor(private readonly options: PictureBudgetOptions) {}

  /** Pictures waiting for a worker now, over all platforms. */
  get waiting(): number {
    let total = 0;
    for (const queue of this.queues.values()) total += queue.length;
    return total;
  }

  /**
   * Runs `work` when the platform's turn comes. Refused (RATE_LIMITED) when the platform already
   * holds its share; `signal` withdraws a picture still waiting (its deadline passed).
   */
  async run<T>(platformId: string, work: () => Promise<T>, signal?: AbortSignal): Promise<T> {
    const held = this.held.get(platformId) ?? 0;
    if (held >= this.options.perPlatform) {
      const now = this.options.now();
      throw errors.rateLimited(
        'Too many pictures of this platform are being examined; retry shortly',
        this.options.perPlatform,
        new Date(now.getTime() + 1000),
        now,
      );
    }
    this.held.set(platformId, held + 1);
    try {
      await this.turn(platformId, signal);
      try {
        return await work();
      } finally {
        this.running -= 1;
        this.dispatch();
      }
    } finally {
      const left = (this.held.get(platformId) ?? 1) - 1;
      if (left === 0) {
        this.held.delete(platformId);
        this.turns.delete(platformId);
      } else this.held.set(platformId, left);
    }
  }

  private turn(platformId: string, signal?: AbortSignal): Promise<void> {
    if (signal?.aborted === true) return Promise.reject(signal.reason as Error);
    return new Promise<void>((resolve, reject) => {
      const entry: Waiting = {
        start: () => {
          signal?.removeEventListener('abort', onAbort);
          resolve();
        },
        abandon: () => reject(signal?.reason as Error),
      };
      const onAbort = (): void => {
        const queue = this.queues.get(platformId);
        const at = queue?.indexOf(entry) ?? -1;
        if (queue && at >= 0) {
          queue.splice(at, 1);
          if (queue.length === 0) this.queues.delete(platformId);
          entry.abandon();
        }
      };
      signal?.addEventListener('abort', onAbort, { once: true });
      const queue = this.queues.get(platformId);
      if (queue) queue.push(entry);
      else this.queues.set(platformId, [entry]);
      this.dispatch();
    });
  }

  /** Starts waiting pictures while workers are free, the platform served least lately first. */
  private dispatch(): void {
    while (this.running < this.options.concurrency && this.queues.size > 0) {
      let next: string | undefined;
      let lowest = Infinity;
      for (const platformId of this.queues.keys()) {
        const turn = this.turns.get(platformId) ?? 0;
        if (turn < lowest) {
          lowest = turn;
          next = platformId;
        }
      }
      if (next === undefined) return;
      const queue = this.queues.get(next) ?? [];
      const entry = queue.shift();
      if (queue.length === 0) this.queues.delete(next);
      if (entry === undefined) continue;
      this.lastTurn = Math.max(lowest, this.lastTurn) + 1;
      this.turns.set(next, this.lastTurn);
      this.running += 1;
      entry.start();
    }
  }
}
