import { centsOf, sumCents, type Cents } from '@svc/money';

/** One version of a license's usage report of a period. */
export interface UsageReport {
  id: string;
  licenseId: string;
  period: string;
  version: number;
  licenseePlatformId: string;
  metrics: Record<string, number>;
  revenueCents: Record<string, bigint>;
  totalRevenueCents: bigint;
  royaltyRate: string;
  royaltyDueCents: bigint;
  currency: string;
  dueDate: Date;
  reportedAt: Date;
}

/** The revenue types the events name; any other type is summed into `other`. */
export const NAMED_REVENUE_TYPES = ['subscriptions', 'messages', 'tips', 'ads'] as const;

/** Each reported amount in cents (VALIDATION_ERROR naming `revenue.<type>` for a third decimal). */
export function revenueCentsOf(revenue: Record<string, number>): Record<string, bigint> {
  const cents: Record<string, bigint> = {};
  for (const [type, amount] of Object.entries(revenue)) cents[type] = centsOf(amount, `revenue.${type}`);
  return cents;
}

/** The sum of the amounts. */
export function totalOf(cents: Record<string, Cents>): Cents {
  return sumCents(Object.values(cents));
}

/** The event's revenue breakdown: the four named types and the rest as `other`. */
export function revenueByType(
  cents: Record<string, bigint>,
): Record<(typeof NAMED_REVENUE_TYPES)[number] | 'other', Cents> {
  const named = new Set<string>(NAMED_REVENUE_TYPES);
  let other = 0n;
  for (const [type, value] of Object.entries(cents)) if (!named.has(type)) other += value;
  return {
    subscriptions: cents.subscriptions ?? 0n,
    messages: cents.messages ?? 0n,
    tips: cents.tips ?? 0n,
    ads: cents.ads ?? 0n,
    other,
  };
}

/** Unique users of the period: the `subscribers` counter, as a whole number. */
export function usersOf(metrics: Record<string, number>): number {
  return Math.floor(metrics.subscribers ?? 0);
}
