import type { Clock } from '@svc/clock';
import type { Queryable } from '@svc/ports';
import type { Limits, Plan } from './plans';
import { windowOf } from './rate-limit';
import type { ApiKeyStore, Platform } from './ports';
import type { RateCounterStore } from './account-ports';

export interface WindowUsage {
  used: number;
  limit: number;
  resetAt: Date;
}

export interface BudgetUsage {
  minute: WindowUsage;
  day: WindowUsage;
}

export interface PlanUsage {
  plan: Plan;
  limits: Limits;
  session: BudgetUsage;
  keys: (BudgetUsage & { keyId: string })[];
}

/** The counters of a dashboard session's own budget: `m:` and `d:` followed by this. */
export function sessionBudgetId(sessionId: string): string {
  return `session:${sessionId}`;
}

/**
 * A tenant's plan and how much of each of its budgets the current minute and UTC day have used:
 * the signed-in session's own (its limits are the dashboard's, not the plan's: docs/spec/contracts.md §17) and each key still accepted (a rotated key and its successor share
 * one budget, so both show the same counts). Reading counts nothing.
 *
 * The shared counter also holds the slices of budget gateways have leased and not spent yet
 * (ADR 0025): this replica's own are taken off, so one gateway answers exactly; another replica's
 * (at most 100 units per bucket) count as used until it spends them or gives them back, within a
 * second of going idle.
 */
export async function describePlanUsage(
  deps: {
    db: Queryable;
    keys: ApiKeyStore;
    counters: RateCounterStore;
    clock: Clock;
    heldBudget?: (bucket: string, windowStart: Date) => number;
  },
  input: { platform: Platform; sessionId: string; sessionBudget: Limits },
): Promise<PlanUsage> {
  const now = deps.clock.now();
  const minute = windowOf(now, 60);
  const day = windowOf(now, 86_400);
  const { limits } = input.platform;
  const used = async (bucket: string, windowStart: Date): Promise<number> =>
    Math.max(
      0,
      (await deps.counters.read(deps.db, bucket, windowStart)) -
        (deps.heldBudget?.(bucket, windowStart) ?? 0),
    );
  const budget = async (id: string, of: Limits = limits): Promise<BudgetUsage> => ({
    minute: { used: await used(`m:${id}`, minute.start), limit: of.perMinute, resetAt: minute.end },
    day: { used: await used(`d:${id}`, day.start), limit: of.perDay, resetAt: day.end },
  });
  const accepted = (await deps.keys.listForPlatform(deps.db, input.platform.id)).filter(
    (key) => key.revokedAt === null && (key.expiresAt === null || key.expiresAt > now),
  );
  const keys = [];
  for (const key of accepted) keys.push({ keyId: key.id, ...(await budget(key.budgetId)) });
  return {
    plan: input.platform.plan,
    limits,
    session: await budget(sessionBudgetId(input.sessionId), input.sessionBudget),
    keys,
  };
}
