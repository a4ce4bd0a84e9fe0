import type { Queryable } from '@svc/ports';
import type { BudgetGrant, KeyBudgetStore } from './ports';

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
 * given back (at most one lease per bucket and replica, given back after IDLE_RETURN_MS idle).
 */
export class BudgetLeases {
  private readonly leases = new Map<string, Lease>();
  private readonly inFlight = new Map<string, Promise<BudgetGrant[]>>();
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
          // a bucket it found spent and that is still empty here refuses this request too.
          const grants = await pending.catch(() => []);
          const refusal = this.refusalOf(leases, grants);
          if (refusal !== undefined) return refusal;
          continue;
        }
        const empty = leases.filter((lease) => lease.left === 0);
        const demand = this.waiting.get(budgetId) ?? 1;
        const acquiring = this.acquire(q, empty, demand);
        this.inFlight.set(budgetId, acquiring);
        let grants: BudgetGrant[];
        try {
          grants = await acquiring;
        } finally {
          this.inFlight.delete(budgetId);
        }
        const refusal = this.refusalOf(leases, grants);
        if (refusal !== undefined) return refusal;
      }
    } finally {
      const left = (this.waiting.get(budgetId) ?? 1) - 1;
      if (left === 0) this.waiting.delete(budgetId);
      else this.waiting.set(budgetId, left);
    }
  }

  /** The counts of a refusal when a grant found one of these buckets spent and its lease is empty. */
  private refusalOf(leases: Lease[], grants: BudgetGrant[]): number[] | undefined {
    const spent = new Set(grants.filter((grant) => grant.granted === 0).map((grant) => grant.bucket));
    const refused = leases.filter((lease) => spent.has(lease.bucket) && lease.left === 0);
    if (refused.length === 0) return undefined;
    return leases.map((lease) =>
      refused.includes(lease) ? lease.limit + 1 : Math.min(lease.limit, lease.known - lease.left),
    );
  }

  /** The units of `bucket`'s window starting at `windowStart` this replica holds and has not spent. */
  heldOf(bucket: string, windowStart: Date): number {
    const lease = this.leases.get(bucket);
    return lease === undefined || lease.windowStart !== windowStart.getTime() ? 0 : lease.left;
  }

  private leaseOf(wanted: BucketWanted): Lease {
    const windowStart = wanted.windowStart.getTime();
    let lease = this.leases.get(wanted.bucket);
    // A lease of an earlier window is void: its units counted in a window that is over.
    if (lease === undefined || lease.windowStart !== windowStart) {
      lease = {
        bucket: wanted.bucket,
        windowStart,
        windowEnd: wanted.windowEnd.getTime(),
        limit: wanted.limit,
        left: 0,
        known: 0,
        lastUsed: this.monotonicNow(),
      };
      this.leases.set(wanted.bucket, lease);
    }
    lease.limit = wanted.limit;
    return lease;
  }

  private async acquire(q: Queryable, empty: Lease[], demand: number): Promise<BudgetGrant[]> {
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
    for (const grant of grants) {
      const lease = empty.find((each) => each.bucket === grant.bucket);
      if (lease === undefined) continue;
      lease.left += grant.granted;
      lease.known = grant.count;
      lease.lastUsed = now;
      // The lease may have been replaced meanwhile (a new window): then these units are void too.
    }
    return grants;
  }

  /**
   * Gives back what has not been spent for `idleMs` (all of it with 0), and forgets leases whose
   * window ended at `now`. The units leave memory before the statement, so none is spent twice.
   */
  async giveBack(q: Queryable, now: Date, idleMs = IDLE_RETURN_MS): Promise<number> {
    const monotonic = this.monotonicNow();
    const units: { bucket: string; windowStart: Date; units: number }[] = [];
    for (const [bucket, lease] of this.leases) {
      if (lease.windowEnd <= now.getTime()) {
        this.leases.delete(bucket);
        continue;
      }
      if (lease.left > 0 && monotonic - lease.lastUsed >= idleMs) {
        units.push({ bucket, windowStart: new Date(lease.windowStart), units: lease.left });
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

/**
 * At most 1/LEASE_DIVISOR of what is left of the window, at least 1, at most MAX_LEASE; but as many
 * as there are requests of the budget waiting, since those spend their units at once.
 */
export function leaseSize(limit: number, known: number, demand: number): number {
  const share = Math.floor(Math.max(0, limit - known) / LEASE_DIVISOR);
  return Math.max(1, Math.min(MAX_LEASE, Math.max(share, demand)));
}
