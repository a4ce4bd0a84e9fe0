import type { Queryable } from '@svc/ports';
import { BudgetLeases, leaseSize, MAX_LEASE, type BucketWanted } from '../../src/domain/budget-leases';
import { KeyCache } from '../../src/domain/key-cache';
import type { BudgetRequest, KeyBudgetStore, KnownKey } from '../../src/domain/ports';

const noDatabase = {} as Queryable;

/** The shared counters of the database, as the acquire statement treats them. */
function sharedCounters(): Pick<KeyBudgetStore, 'acquireBudget' | 'returnBudget'> & {
  counts: Map<string, number>;
  statements: number;
} {
  const counts = new Map<string, number>();
  const store = {
    counts,
    statements: 0,
    acquireBudget: async (_q: Queryable, requests: BudgetRequest[]) => {
      store.statements += 1;
      await Promise.resolve();
      return requests.map((r) => {
        const name = `${r.bucket}@${r.windowStart.toISOString()}`;
        const before = counts.get(name) ?? 0;
        const granted = Math.min(r.want, Math.max(0, r.limit - before));
        counts.set(name, before + granted);
        return { bucket: r.bucket, granted, count: before + granted };
      });
    },
    returnBudget: async (_q: Queryable, units: { bucket: string; windowStart: Date; units: number }[]) => {
      for (const u of units) {
        const name = `${u.bucket}@${u.windowStart.toISOString()}`;
        counts.set(name, Math.max(0, (counts.get(name) ?? 0) - u.units));
      }
    },
  };
  return store;
}

const minute = (limit: number, start = '2026-11-27T10:00:00.000Z'): BucketWanted => ({
  bucket: 'm:key_1',
  windowStart: new Date(start),
  windowEnd: new Date(Date.parse(start) + 60_000),
  limit,
});

describe('budget leases', () => {
  it('sizes a lease at 1/64 of what is left, at least one, at most MAX_LEASE, or the requests waiting', () => {
    expect(leaseSize(60, 0, 1)).toBe(1);
    expect(leaseSize(1_000, 0, 1)).toBe(15);
    expect(leaseSize(1_000, 990, 1)).toBe(1);
    expect(leaseSize(1_000_000, 0, 1)).toBe(MAX_LEASE);
    expect(leaseSize(1_000, 990, 8)).toBe(8);
  });

  it('when three replicas spend one budget at once, then together they accept exactly the limit', async () => {
    const store = sharedCounters();
    const replicas = [new BudgetLeases(store), new BudgetLeases(store), new BudgetLeases(store)];
    const answers = await Promise.all(
      Array.from({ length: 1_500 }, (_, i) => replicas[i % 3]!.take(noDatabase, 'key_1', [minute(1_000)])),
    );
    const accepted = answers.filter(([count]) => count! <= 1_000).length;
    expect(accepted).toBeLessThanOrEqual(1_000);
    // Everyone kept asking until the shared counter was empty, so nothing was left held.
    expect(accepted).toBe(1_000);
    // One statement per slice, not per request.
    expect(store.statements).toBeLessThan(400);
  });

  it('when requests of one budget arrive together, then they share one statement', async () => {
    const store = sharedCounters();
    const leases = new BudgetLeases(store);
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => leases.take(noDatabase, 'key_1', [minute(60)])),
    );
    expect(answers.map(([count]) => count).sort((x, y) => x! - y!)).toEqual([1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    expect(store.statements).toBeLessThanOrEqual(2);
  });

  it('when a bucket is spent, then the request is refused with limit + 1 and the other buckets keep their units', async () => {
    const store = sharedCounters();
    const leases = new BudgetLeases(store);
    const day: BucketWanted = {
      bucket: 'd:key_1',
      windowStart: new Date('2026-11-27T00:00:00.000Z'),
      windowEnd: new Date('2026-11-28T00:00:00.000Z'),
      limit: 2,
    };
    expect(await leases.take(noDatabase, 'key_1', [minute(60), day])).toEqual([1, 1]);
    expect(await leases.take(noDatabase, 'key_1', [minute(60), day])).toEqual([2, 2]);
    expect(await leases.take(noDatabase, 'key_1', [minute(60), day])).toEqual([2, 3]);
    expect(store.counts.get('d:key_1@2026-11-27T00:00:00.000Z')).toBe(2);
  });

  it('when a lease lies idle, then its units go back, and a new window starts with a new lease', async () => {
    let now = 0;
    const store = sharedCounters();
    const leases = new BudgetLeases(store, () => now);
    await leases.take(noDatabase, 'key_1', [minute(6_400)]);
    expect(leases.held()).toBe(99);
    now = 500;
    expect(await leases.giveBack(noDatabase, new Date('2026-11-27T10:00:30.000Z'))).toBe(0);
    now = 1_500;
    expect(await leases.giveBack(noDatabase, new Date('2026-11-27T10:00:30.000Z'))).toBe(99);
    expect(store.counts.get('m:key_1@2026-11-27T10:00:00.000Z')).toBe(1);
    expect(leases.held()).toBe(0);
    // The next minute's first request counts from one again.
    expect(await leases.take(noDatabase, 'key_1', [minute(6_400, '2026-11-27T10:01:00.000Z')])).toEqual([1]);
    await leases.giveBack(noDatabase, new Date('2026-11-27T10:01:00.000Z'), 0);
    expect(store.counts.get('m:key_1@2026-11-27T10:01:00.000Z')).toBe(1);
  });
});

describe('budget leases across a minute boundary', () => {
  const OLD = '2026-11-27T10:00:00.000Z';
  const NEW = '2026-11-27T10:01:00.000Z';

  it('when requests of the minute that ended and of the new one interleave on two replicas at 4 % of the limit, then none is refused and the shared counters read what was used', async () => {
    let now = 0;
    const store = sharedCounters();
    const replicas = [new BudgetLeases(store, () => now), new BudgetLeases(store, () => now)];
    const answers: number[] = [];
    const used: Record<string, number> = { [OLD]: 0, [NEW]: 0 };
    // 12:00:59.9 requests finishing their acquisition after 12:01:00.1 requests, on both replicas,
    // for the whole sweep interval and more (the sweep runs every 500 ms, idle units go back after 1 s).
    for (let wave = 0; wave < 100; wave += 1) {
      now += 10;
      const started = replicas.flatMap((replica) =>
        [OLD, NEW].map((start) => {
          used[start] = (used[start] ?? 0) + 1;
          return replica.take(noDatabase, 'key_1', [minute(5_000, start)]);
        }),
      );
      for (const [count] of await Promise.all(started)) answers.push(count!);
      if (wave % 50 === 49) {
        for (const replica of replicas)
          await replica.giveBack(noDatabase, new Date('2026-11-27T10:01:00.100Z'));
      }
    }
    expect(used).toEqual({ [OLD]: 200, [NEW]: 200 });
    expect(answers.filter((count) => count > 5_000)).toEqual([]);
    // What a replica holds unspent is at most one lease per window: the counters are not filled by
    // units thrown away.
    for (const start of [OLD, NEW]) {
      const counted = store.counts.get(`m:key_1@${start}`) ?? 0;
      expect(counted).toBeGreaterThanOrEqual(used[start]!);
      expect(counted).toBeLessThanOrEqual(used[start]! + 2 * MAX_LEASE);
    }
  });

  it('when two replicas straddle the boundary past the limit, then each minute still accepts exactly its limit', async () => {
    const store = sharedCounters();
    const replicas = [new BudgetLeases(store), new BudgetLeases(store)];
    const answers = await Promise.all(
      Array.from({ length: 3_000 }, (_, i) =>
        replicas[i % 2]!.take(noDatabase, 'key_1', [minute(1_000, i % 3 === 0 ? OLD : NEW)]).then(
          ([count]) => ({
            start: i % 3 === 0 ? OLD : NEW,
            accepted: count! <= 1_000,
          }),
        ),
      ),
    );
    for (const start of [OLD, NEW]) {
      expect(answers.filter((answer) => answer.start === start && answer.accepted)).toHaveLength(1_000);
    }
  });

  it('when a request of the new minute waits on an acquisition of the spent old minute, then only the old minute is refused', async () => {
    const store = sharedCounters();
    // Another replica spent the old minute to its limit.
    store.counts.set(`m:key_1@${OLD}`, 60);
    const leases = new BudgetLeases(store);
    const [late, fresh] = await Promise.all([
      leases.take(noDatabase, 'key_1', [minute(60, OLD)]),
      leases.take(noDatabase, 'key_1', [minute(60, NEW)]),
    ]);
    expect(late).toEqual([61]);
    expect(fresh).toEqual([1]);
  });

  it('when the new minute is spent, then a late request of the old minute still spends its own window', async () => {
    const store = sharedCounters();
    store.counts.set(`m:key_1@${NEW}`, 60);
    const leases = new BudgetLeases(store);
    const [fresh, late] = await Promise.all([
      leases.take(noDatabase, 'key_1', [minute(60, NEW)]),
      leases.take(noDatabase, 'key_1', [minute(60, OLD)]),
    ]);
    expect(fresh).toEqual([61]);
    expect(late).toEqual([1]);
  });

  it('when both minutes hold units, then each is spent in its own window, and the ended one goes back to its counter', async () => {
    let now = 0;
    const store = sharedCounters();
    const leases = new BudgetLeases(store, () => now);
    expect(await leases.take(noDatabase, 'key_1', [minute(6_400, OLD)])).toEqual([1]);
    expect(await leases.take(noDatabase, 'key_1', [minute(6_400, NEW)])).toEqual([1]);
    expect(await leases.take(noDatabase, 'key_1', [minute(6_400, OLD)])).toEqual([2]);
    expect(leases.heldOf('m:key_1', new Date(OLD))).toBe(98);
    expect(leases.heldOf('m:key_1', new Date(NEW))).toBe(99);
    // The sweep after the old minute ended: its units go back, the new minute's (not idle) stay.
    now = 500;
    expect(await leases.giveBack(noDatabase, new Date('2026-11-27T10:01:00.500Z'))).toBe(98);
    expect(store.counts.get(`m:key_1@${OLD}`)).toBe(2);
    expect(store.counts.get(`m:key_1@${NEW}`)).toBe(100);
    expect(leases.heldOf('m:key_1', new Date(NEW))).toBe(99);
    // A request that began in the old minute comes later still: counted there, after the two.
    expect(await leases.take(noDatabase, 'key_1', [minute(6_400, OLD)])).toEqual([3]);
    expect(await leases.take(noDatabase, 'key_1', [minute(6_400, NEW)])).toEqual([2]);
  });
});

const KEY: KnownKey = {
  keyId: 'key_1',
  keyHash: 'h',
  platformId: 'plat_1',
  environment: 'sandbox',
  budgetId: 'key_1',
  expiresAt: null,
  revokedAt: null,
  plan: 'sandbox',
  platformName: 'P',
  domain: null,
  storedLimits: null,
  scope: 'full',
};

describe('key cache', () => {
  it('when the change feed confirms, then a key is answered from memory until a change empties it', async () => {
    let now = 0;
    const cache = new KeyCache(750, () => now);
    let reads = 0;
    const read = async () => {
      reads += 1;
      return KEY;
    };
    await cache.get('h', read);
    now = 5_000;
    cache.confirmed(4_900);
    await cache.get('h', read);
    expect(reads).toBe(1);
    cache.invalidateAll();
    await cache.get('h', read);
    expect(reads).toBe(2);
  });

  it('when the change feed has not confirmed lately, then a key older than 750 ms is read again', async () => {
    let now = 0;
    const cache = new KeyCache(750, () => now);
    let reads = 0;
    const read = async () => {
      reads += 1;
      return KEY;
    };
    cache.confirmed(0);
    await cache.get('h', read);
    now = 700;
    await cache.get('h', read);
    expect(reads).toBe(1);
    now = 800;
    await cache.get('h', read);
    expect(reads).toBe(2);
    cache.confirmed(790);
    cache.lost();
    now = 1_600;
    await cache.get('h', read);
    expect(reads).toBe(3);
  });

  it('when a change arrives while a key is being read, then what was read is not kept', async () => {
    const cache = new KeyCache(750, () => 0);
    cache.confirmed(0);
    let reads = 0;
    await cache.get('h', async () => {
      reads += 1;
      cache.invalidateAll();
      return KEY;
    });
    await cache.get('h', async () => {
      reads += 1;
      return KEY;
    });
    expect(reads).toBe(2);
  });
});
