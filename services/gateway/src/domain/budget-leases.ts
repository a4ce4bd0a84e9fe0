import type { Queryable } from '@svc/ports';
import type { KeyBudgetStore } from './ports';

/**
 * A lease asks for at most 1/LEASE_DIVISOR of what is left of a bucket's window (known from the
 * last grant), so a replica never holds more than that fraction of what others could still spend;
 * limits under LEASE_DIVISOR are counted one request at a time, exactly as before leases.
 */
export const LEASE_DIVISOR = 64;
/** The most a replica takes at once from one bucket. */
export const MAX_LEASE = 100;
/** Units a replica has not spent for this long go back to the shared counter. */
export const IDLE_RETURN_MS = 1_000;

/** One bucket of a request: its shared name, its window and its limit. */
export interface BucketWanted {
  bucket: string;
  windowStart: Date;
  windowEnd: Date;
  limit: number;
}

interface Lease {
  bucket: string;
  windowStart: number;
  windowEnd: number;
  limit: number;
  /** Units this replica holds and may spend without asking. */
  left: number;
  /** The bucket's shared count (units handed out to every replica) after this replica's last grant. */
  known: number;
  lastUsed: number;
}

/**
 * This replica's leases of rate-limit budget (ADR 0025). A request spends one unit of each of its
 * buckets from memory; only when a bucket's lease is empty does it take a new slice from the shared
 * counter (one statement for every empty bucket of the request, one in flight per budget). The
 * shared counter never hands out more than the limit, so the requests accepted by all replicas in
 * a window never exceed it; what a replica holds unspent is refused elsewhere until it is spent or
 * given back (at most one lease per bucket, window and replica, given back after IDLE_RETURN_MS idle).
 *
 * A lease belongs to its bucket's window: a request that began in the minute before (a slow
 * request, or a replica whose requests straddle the boundary) spends from that minute's lease and
 * leaves the new minute's alone. One lease per bucket, replaced by whichever window asked last,
 * threw away the unspent units of the other at each turn; they stayed counted, and the old minute's
 * counter filled until every request was refused at a few per cent of the limit (#34).
 */
export class BudgetLeases {
  /** By bucket and window start (`leaseKey`). */
  private readonly leases = new Map<string, Lease>();
  /** The acquisition in flight per budget; it answers the leases it found spent. */
  private readonly inFlight = new Map<string, Promise<Lease[]>>();
  private readonly waiting = new Map<string, number>();

  constructor(
    private readonly store: Pick<KeyBudgetStore, 'acquireBudget' | 'returnBudget'>,
    private readonly monotonicNow: () => number = () => performance.now(),
  ) {}

  /**
   * Spends one unit of every bucket of `budgetId`'s request, or refuses it. Answers each bucket's
   * count as `decide` reads it: the units handed out that this replica knows of, less what it still
   * holds (so X-RateLimit-Remaining is exact with one replica), or limit + 1 for a bucket that
   * refused.
   */
  async take(q: Queryable, budgetId: string, wanted: BucketWanted[]): Promise<number[]> {
    this.waiting.set(budgetId, (this.waiting.get(budgetId) ?? 0) + 1);
    try {
      for (;;) {
        const leases = wanted.map((bucket) => this.leaseOf(bucket));
        if (leases.every((lease) => lease.left > 0)) {
          const now = this.monotonicNow();
          return leases.map((lease) => {
            lease.left -= 1;
            lease.lastUsed = now;
            return lease.known - lease.left;
          });
        }
        const pending = this.inFlight.get(budgetId);
        if (pending !== undefined) {
          // Another request of this budget is taking a slice: spend from it, or ask again after it;
          // a bucket's window it found spent and that is still empty here refuses this request too
          // (the same bucket of another window does not: it has its own lease and counter).
          const spent = await pending.catch(() => []);
          const refusal = this.refusalOf(leases, spent);
          if (refusal !== undefined) return refusal;
          continue;
        }
        const empty = leases.filter((lease) => lease.left === 0);
        const demand = this.waiting.get(budgetId) ?? 1;
        const acquiring = this.acquire(q, empty, demand);
        this.inFlight.set(budgetId, acquiring);
        let spent: Lease[];
        try {
          spent = await acquiring;
        } finally {
          this.inFlight.delete(budgetId);
        }
        const refusal = this.refusalOf(leases, spent);
        if (refusal !== undefined) return refusal;
      }
    } finally {
      const left = (this.waiting.get(budgetId) ?? 1) - 1;
      if (left === 0) this.waiting.delete(budgetId);
      else this.waiting.set(budgetId, left);
    }
  }

  /** The counts of a refusal when an acquisition found one of these leases spent and it is empty. */
  private refusalOf(leases: Lease[], spent: Lease[]): number[] | undefined {
    const refused = leases.filter((lease) => spent.includes(lease) && lease.left === 0);
    if (refused.length === 0) return undefined;
    return leases.map((lease) =>
      refused.includes(lease) ? lease.limit + 1 : Math.min(lease.limit, lease.known - lease.left),
    );
  }

  /** The units of `bucket`'s window starting at `windowStart` this replica holds and has not spent. */
  heldOf(bucket: string, windowStart: Date): number {
    return this.leases.get(leaseKey(bucket, windowStart.getTime()))?.left ?? 0;
  }

  private leaseOf(wanted: BucketWanted): Lease {
    const windowStart = wanted.windowStart.getTime();
    const key = leaseKey(wanted.bucket, windowStart);
    let lease = this.leases.get(key);
    if (lease === undefined) {
      lease = {
        bucket: wanted.bucket,
        windowStart,
        windowEnd: wanted.windowEnd.getTime(),
        limit: wanted.limit,
        left: 0,
        known: 0,
        lastUsed: this.monotonicNow(),
      };
      this.leases.set(key, lease);
    }
    lease.limit = wanted.limit;
    return lease;
  }

  /** Fills the empty leases of one request (one window per bucket) and answers those found spent. */
  private async acquire(q: Queryable, empty: Lease[], demand: number): Promise<Lease[]> {
    const grants = await this.store.acquireBudget(
      q,
      empty.map((lease) => ({
        bucket: lease.bucket,
        windowStart: new Date(lease.windowStart),
        want: leaseSize(lease.limit, lease.known, demand),
        limit: lease.limit,
      })),
    );
    const now = this.monotonicNow();
    const spent: Lease[] = [];
    for (const grant of grants) {
      const lease = empty.find((each) => each.bucket === grant.bucket);
      if (lease === undefined) continue;
      lease.left += grant.granted;
      lease.known = grant.count;
      lease.lastUsed = now;
      if (grant.granted === 0) spent.push(lease);
      // The sweep may have dropped the lease meanwhile (its window ended): its units are void too.
    }
    return spent;
  }

  /**
   * Gives back what has not been spent for `idleMs` (all of it with 0), and forgets leases whose
   * window ended at `now`, giving back what they hold too: a request that began before the end may
   * still come (a slow one, another replica's) and finds it in the shared counter. The units leave
   * memory before the statement, so none is spent twice.
   */
  async giveBack(q: Queryable, now: Date, idleMs = IDLE_RETURN_MS): Promise<number> {
    const monotonic = this.monotonicNow();
    const units: { bucket: string; windowStart: Date; units: number }[] = [];
    for (const [key, lease] of this.leases) {
      const ended = lease.windowEnd <= now.getTime();
      if (ended) this.leases.delete(key);
      if (lease.left > 0 && (ended || monotonic - lease.lastUsed >= idleMs)) {
        units.push({ bucket: lease.bucket, windowStart: new Date(lease.windowStart), units: lease.left });
        lease.known -= lease.left;
        lease.left = 0;
      }
    }
    if (units.length > 0) await this.store.returnBudget(q, units);
    return units.reduce((sum, each) => sum + each.units, 0);
  }

  /** Units held now (for tests and the metrics). */
  held(): number {
    let sum = 0;
    for (const lease of this.leases.values()) sum += lease.left;
    return sum;
  }
}

function leaseKey(bucket: string, windowStart: number): string {
  return `${bucket}@${windowStart}`;
}

/**
 * At most 1/LEASE_DIVISOR of what is left of the window, at least 1, at most MAX_LEASE; but as many
 * as there are requests of the budget waiting, since those spend their units at once.
 */
export function leaseSize(limit: number, known: number, demand: number): number {
  const share = Math.floor(Math.max(0, limit - known) / LEASE_DIVISOR);
  return Math.max(1, Math.min(MAX_LEASE, Math.max(share, demand)));
}
