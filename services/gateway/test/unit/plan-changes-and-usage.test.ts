import { ManualClock } from '@svc/clock';
import type { Queryable } from '@svc/ports';
import { changePlatformPlan } from '../../src/domain/change-platform-plan.use-case';
import { describePlanUsage } from '../../src/domain/plan-usage.use-case';
import { limitsFor, type Limits, type Plan } from '../../src/domain/plans';
import type { ApiKeyRecord, ApiKeyStore, Platform, PlatformStore } from '../../src/domain/ports';

const db = {} as Queryable;
const NOW = '2026-11-22T10:00:30.000Z';

function platformStore(
  platform: Platform,
): PlatformStore & { saved: { plan: Plan; limits: Limits | null }[] } {
  const saved: { plan: Plan; limits: Limits | null }[] = [];
  return {
    saved,
    insert: async () => undefined,
    list: async () => ({ items: [], total: 0 }),
    find: async (_q, id) => (id === platform.id ? platform : null),
    changePlan: async (_q, id, plan, limits) => {
      if (id !== platform.id) return false;
      saved.push({ plan, limits });
      Object.assign(platform, { plan, limits: limitsFor(plan, limits) });
      return true;
    },
  };
}

const sandboxPlatform = (): Platform => ({
  id: 'plat_1',
  name: 'P',
  plan: 'sandbox',
  domain: null,
  limits: limitsFor('sandbox', null),
  createdAt: new Date(NOW),
});

describe('changing a plan', () => {
  it('when a listed plan is chosen, then no agreed limits are stored and the plan’s own apply', async () => {
    const platforms = platformStore(sandboxPlatform());
    const changed = await changePlatformPlan({ db, platforms }, { id: 'plat_1', plan: 'standard' });
    expect(platforms.saved).toEqual([{ plan: 'standard', limits: null }]);
    expect(changed.limits).toEqual({ perMinute: 1000, perDay: 500_000 });
  });

  it('when enterprise is chosen, then the agreed limits are stored, or the enterprise defaults', async () => {
    const platforms = platformStore(sandboxPlatform());
    await changePlatformPlan(
      { db, platforms },
      { id: 'plat_1', plan: 'enterprise', limits: { perMinute: 7, perDay: 70 } },
    );
    await changePlatformPlan({ db, platforms }, { id: 'plat_1', plan: 'enterprise' });
    expect(platforms.saved).toEqual([
      { plan: 'enterprise', limits: { perMinute: 7, perDay: 70 } },
      { plan: 'enterprise', limits: limitsFor('enterprise', null) },
    ]);
  });

  it('when limits come with a listed plan, then VALIDATION_ERROR on limits and nothing is saved; an unknown platform is NOT_FOUND', async () => {
    const platforms = platformStore(sandboxPlatform());
    await expect(
      changePlatformPlan({ db, platforms }, { id: 'plat_1', plan: 'basic', limits: { perMinute: 1 } }),
    ).rejects.toMatchObject({ code: 'VALIDATION_ERROR' });
    await expect(
      changePlatformPlan({ db, platforms }, { id: 'plat_x', plan: 'basic' }),
    ).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect(platforms.saved).toEqual([]);
  });
});

describe('plan usage', () => {
  const key = (id: string, extra: Partial<ApiKeyRecord> = {}): ApiKeyRecord => ({
    id,
    platformId: 'plat_1',
    name: null,
    last4: null,
    lastUsedAt: null,
    scope: 'full',
    environment: 'sandbox',
    budgetId: `budget_${id}`,
    createdAt: new Date(NOW),
    expiresAt: null,
    revokedAt: null,
    replacedBy: null,
    ...extra,
  });

  it('when keys and the session made calls, then each accepted key and the session show their minute and day counts with the window ends, the session under its own limits', async () => {
    const keys = [
      key('key_active'),
      key('key_expiring', { expiresAt: new Date('2026-11-23T00:00:00.000Z') }),
      key('key_expired', { expiresAt: new Date('2026-11-22T09:00:00.000Z') }),
      key('key_revoked', { revokedAt: new Date('2026-11-22T09:00:00.000Z') }),
    ];
    const counts: Record<string, number> = {
      'm:budget_key_active': 3,
      'd:budget_key_active': 40,
      'm:session:sess_1': 1,
      'd:session:sess_1': 2,
    };
    const usage = await describePlanUsage(
      {
        db,
        clock: new ManualClock(NOW),
        keys: { listForPlatform: async () => keys } as unknown as ApiKeyStore,
        counters: {
          increment: async () => new Map(),
          read: async (_q, bucket) => counts[bucket] ?? 0,
          giveBack: async () => undefined,
        },
      },
      { platform: sandboxPlatform(), sessionId: 'sess_1', sessionBudget: { perMinute: 300, perDay: 20_000 } },
    );
    expect(usage.plan).toBe('sandbox');
    expect(usage.keys.map((k) => k.keyId)).toEqual(['key_active', 'key_expiring']);
    expect(usage.keys[0]).toEqual({
      keyId: 'key_active',
      minute: { used: 3, limit: 60, resetAt: new Date('2026-11-22T10:01:00.000Z') },
      day: { used: 40, limit: 1000, resetAt: new Date('2026-11-23T00:00:00.000Z') },
    });
    expect(usage.session).toEqual({
      minute: { used: 1, limit: 300, resetAt: new Date('2026-11-22T10:01:00.000Z') },
      day: { used: 2, limit: 20_000, resetAt: new Date('2026-11-23T00:00:00.000Z') },
    });
  });
});
