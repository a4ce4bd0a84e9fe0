export const PLANS = ['sandbox', 'basic', 'standard', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

export interface Limits {
  perMinute: number;
  perDay: number;
}

/** Requests per minute and per day by plan (spec, Limits). Enterprise limits are stored per platform. */
export const PLAN_LIMITS: Record<Exclude<Plan, 'enterprise'>, Limits> = {
  sandbox: { perMinute: 60, perDay: 1_000 },
  basic: { perMinute: 300, perDay: 50_000 },
  standard: { perMinute: 1_000, perDay: 500_000 },
};

/** What an enterprise platform gets when it was created without agreed figures. */
export const ENTERPRISE_DEFAULT_LIMITS: Limits = { perMinute: 5_000, perDay: 5_000_000 };

/** Extra buckets of docs/spec/contracts.md §4, per key. */
export const EXTRA_BUCKETS = {
  'usage-report': { limit: 100, windowSeconds: 60 },
  'webhook-test': { limit: 10, windowSeconds: 3600 },
} as const;

/** The limits a platform runs under. */
export function limitsFor(plan: Plan, stored: Partial<Limits> | null): Limits {
  if (plan === 'enterprise') {
    return {
      perMinute: stored?.perMinute ?? ENTERPRISE_DEFAULT_LIMITS.perMinute,
      perDay: stored?.perDay ?? ENTERPRISE_DEFAULT_LIMITS.perDay,
    };
  }
  return PLAN_LIMITS[plan];
}
