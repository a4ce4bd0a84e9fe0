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

  purgeCounters(q: Queryable, before: Date): Promise<number> {
    return this.store.purgeCounters(q, before);
  }
}
