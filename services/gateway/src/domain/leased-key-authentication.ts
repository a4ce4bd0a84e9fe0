import type { Queryable } from '@svc/ports';
import type { Environment } from './api-key';
import { BudgetLeases, type BucketWanted } from './budget-leases';
import { KeyCache } from './key-cache';
import { EXTRA_BUCKETS, limitsFor } from './plans';
import type { AuthenticatedKey, CountWindows, KeyAuthenticationStore, KeyBudgetStore } from './ports';

const MINUTE_MS = 60_000;
const DAY_MS = 86_400_000;

/**
 * The key check and rate counting of every public request without a database round trip in the
 * common case (ADR 0025): the key comes from this replica's `KeyCache` (emptied by the change feed,
 * read again when it may be stale) and each bucket's unit from its `BudgetLeases`. Answers what the
 * single statement of ADR 0002 answered, so `authenticateRequest` decides as before.
 */
export class LeasedKeyAuthentication implements KeyAuthenticationStore {
  readonly keys: KeyCache;
  readonly leases: BudgetLeases;
  /** Each key's latest use on this replica since the last write. */
  private uses = new Map<string, Date>();

  constructor(
    private readonly store: KeyBudgetStore,
    options: { keys?: KeyCache; leases?: BudgetLeases } = {},
  ) {
    this.keys = options.keys ?? new KeyCache();
    this.leases = options.leases ?? new BudgetLeases(store);
  }

  async authenticateAndCount(
    q: Queryable,
    keyHash: string,
    now: Date,
    environment: Environment,
    windows: CountWindows,
  ): Promise<AuthenticatedKey | null> {
    const key = await this.keys.get(keyHash, () => this.store.findKey(q, keyHash));
    if (key === null) return null;
    const usable =
      key.revokedAt === null &&
      (key.expiresAt === null || key.expiresAt.getTime() > now.getTime()) &&
      key.environment === environment;
    if (!usable) return { ...key, minuteCount: null, dayCount: null, extraCount: null };
    // The key's last use, kept here and written every few seconds (writeKeyUses), never per request.
    const seen = this.uses.get(key.keyId);
    if (seen === undefined || seen.getTime() < now.getTime()) this.uses.set(key.keyId, now);

    const limits = limitsFor(key.plan, key.storedLimits);
    const wanted: BucketWanted[] = [
      {
        bucket: `m:${key.budgetId}`,
        windowStart: windows.minuteStart,
        windowEnd: new Date(windows.minuteStart.getTime() + MINUTE_MS),
        limit: limits.perMinute,
      },
      {
        bucket: `d:${key.budgetId}`,
        windowStart: windows.dayStart,
        windowEnd: new Date(windows.dayStart.getTime() + DAY_MS),
        limit: limits.perDay,
      },
    ];
    const extra = windows.extra;
    if (extra !== undefined) {
      const rule = EXTRA_BUCKETS[extra.bucket as keyof typeof EXTRA_BUCKETS] as
        (typeof EXTRA_BUCKETS)[keyof typeof EXTRA_BUCKETS] | undefined;
      if (rule === undefined) throw new Error(`No such bucket: ${extra.bucket}`);
      wanted.push({
        bucket: `${extra.bucket}:${key.budgetId}`,
        windowStart: extra.windowStart,
        windowEnd: new Date(extra.windowStart.getTime() + rule.windowSeconds * 1000),
        limit: rule.limit,
      });
    }
    const [minuteCount, dayCount, extraCount] = await this.leases.take(q, key.budgetId, wanted);
    return {
      ...key,
      minuteCount: minuteCount ?? null,
      dayCount: dayCount ?? null,
      extraCount: extraCount ?? null,
    };
  }

  /**
   * Writes the last use of each key seen since the last call, in one statement. The dashboard's
   * "last used" is informational: a replica that dies loses at most one interval of it, and a
   * write that fails keeps the uses for the next call.
   */
  async writeKeyUses(q: Queryable): Promise<number> {
    if (this.uses.size === 0) return 0;
    const uses = [...this.uses].map(([keyId, at]) => ({ keyId, at }));
    this.uses = new Map();
    try {
      await this.store.recordKeyUses(q, uses);
    } catch (err) {
      for (const use of uses) {
        const later = this.uses.get(use.keyId);
        if (later === undefined || later.getTime() < use.at.getTime()) this.uses.set(use.keyId, use.at);
      }
      throw err;
    }
    return uses.length;
  }

  purgeCounters(q: Queryable, before: Date): Promise<number> {
    return this.store.purgeCounters(q, before);
  }
}
