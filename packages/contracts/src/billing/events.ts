import { z } from 'zod';
import { defineEvent } from '../common/envelope';
import { cents, instant, period } from '../common/event-values';

// Billing's facts. The envelope's platformId is the licensee that reported the usage.

const revenueByType = z.object({
  subscriptions: cents,
  messages: cents,
  tips: cents,
  ads: cents,
  /** Any other reported revenue type, summed. */
  other: cents,
});

/**
 * A usage report was accepted. One report per license and period: a later one is a correction
 * that replaces it (`version` grows), so read models keep the highest version per license+period.
 */
export const usageReported = defineEvent(
  'billing.usage.reported',
  1,
  z.object({
    reportId: z.string(),
    licenseId: z.string(),
    boxId: z.string(),
    licenseePlatformId: z.string(),
    licenseePlatformName: z.string(),
    boxOwnerPlatformId: z.string(),
    period,
    version: z.number().int().min(1),
    metrics: z.record(z.string(), z.number().min(0)),
    /** Unique users the platform reported for the period (subscribers or unique_users). */
    users: z.number().int().min(0),
    revenueCents: revenueByType,
    totalRevenueCents: cents,
    royaltyRate: z.number().min(0).max(1),
    royaltyDueCents: cents,
    currency: z.string().length(3),
    dueDate: instant,
    reportedAt: instant,
  }),
);

/**
 * A payment is needed: the licensee owes the box owner a license's fee or a royalty for a period.
 * `amountCents` is the period's whole current amount of that kind (0 included, after a correction);
 * a higher `version` replaces an earlier notice of the same license, period and kind.
 */
export const paymentDue = defineEvent(
  'billing.payment.due',
  1,
  z.object({
    paymentId: z.string(),
    /** fee: the license's monthly fee for the period; royalty: the share of the reported revenue. */
    kind: z.enum(['fee', 'royalty']).default('royalty'),
    version: z.number().int().min(1).default(1),
    licenseId: z.string(),
    boxId: z.string(),
    period,
    amountCents: cents,
    currency: z.string().length(3),
    /** The platform that is paid (the box owner). */
    recipient: z.string(),
    payerPlatformId: z.string(),
    dueDate: instant,
  }),
);

/** Every event billing publishes (collected by the package's `allEvents`). */
export const billingEvents = [usageReported, paymentDue] as const;
