import { z } from 'zod';
import { defineEvent } from '../common/envelope';
import { cents, instant, licenseTier } from '../common/event-values';

/** The entity each event versions (ADR 0010). */
const byLicense = { entity: 'licenseId' };
const byRequest = { entity: 'requestId' };

// Licensing's facts. The envelope's platformId is the licensee (the platform that asked);
// registry's box statistics, enforcement (a license resolves violations), billing (its license
// projection) and the webhook dispatcher consume them.

const requestData = z.object({
  requestId: z.string(),
  boxId: z.string(),
  claimId: z.string(),
  identityName: z.string(),
  tier: licenseTier,
  licenseePlatformId: z.string(),
  boxOwnerPlatformId: z.string(),
  submittedAt: instant,
});

export const licenseRequestCreated = defineEvent(
  'licensing.request.created',
  1,
  requestData.extend({
    /**
     * True when the box owner must decide; false when the tier is approved automatically (its
     * request.approved follows at once). The gateway mails the owner only for the first (#30).
     * Absent in events written before it existed.
     */
    awaitsReview: z.boolean().optional(),
  }),
  byRequest,
);
export const licenseRequestApproved = defineEvent(
  'licensing.request.approved',
  1,
  requestData.extend({ licenseId: z.string(), approvedAt: instant, automatic: z.boolean() }),
  byRequest,
);
export const licenseRequestDenied = defineEvent(
  'licensing.request.denied',
  1,
  requestData.extend({ reason: z.string(), deniedAt: instant }),
  byRequest,
);

const licenseData = z.object({
  licenseId: z.string(),
  boxId: z.string(),
  claimId: z.string(),
  identityName: z.string(),
  tier: licenseTier,
  status: z.enum(['pending', 'active', 'expired', 'revoked', 'cancelled']),
  licenseePlatformId: z.string(),
  /** Shown as the platform's name in box statistics. */
  licenseePlatformName: z.string(),
  boxOwnerPlatformId: z.string(),
  monthlyFeeCents: cents,
  /** A share of revenue, e.g. 0.15. */
  royaltyRate: z.number().min(0).max(1),
  currency: z.string().length(3),
  validFrom: instant,
  expiresAt: instant,
  autoRenew: z.boolean(),
});

export const licenseActivated = defineEvent('licensing.license.activated', 1, licenseData, byLicense);
export const licenseRenewed = defineEvent(
  'licensing.license.renewed',
  1,
  licenseData.extend({ previousExpiry: instant, newExpiry: instant }),
  byLicense,
);
export const licenseCancelled = defineEvent(
  'licensing.license.cancelled',
  1,
  licenseData.extend({
    reason: z.string().nullable(),
    effectiveDate: z.enum(['immediate', 'end_of_billing_period']),
    effectiveAt: instant,
  }),
  byLicense,
);
export const licenseExpired = defineEvent('licensing.license.expired', 1, licenseData, byLicense);
export const licenseRevoked = defineEvent(
  'licensing.license.revoked',
  1,
  licenseData.extend({ reason: z.string().nullable() }),
  byLicense,
);

/**
 * A decision was appended to the transparency log (docs/spec/contracts.md §16, docs/adr/0030): the resource it
 * concerns carries `logEntry` from then on. Registry (boxes) and enforcement (violations, appeals)
 * consume it; licensing records its own licenses' in the append's transaction. One per entry; a
 * resource's newest entry is the one with the highest index.
 */
export const logEntryAppended = defineEvent(
  'licensing.log_entry.appended',
  1,
  z.object({
    index: z.number().int().min(0),
    /** base64 of the entry's RFC 9162 leaf hash. */
    leafHash: z.string(),
    decision: z.string(),
    resourceType: z.enum(['box', 'license', 'violation', 'appeal']),
    resourceId: z.string(),
    boxId: z.string(),
  }),
);

export const licenseEvents = [
  licenseActivated,
  licenseRenewed,
  licenseCancelled,
  licenseExpired,
  licenseRevoked,
] as const;
export const licenseRequestEvents = [
  licenseRequestCreated,
  licenseRequestApproved,
  licenseRequestDenied,
] as const;

/** Every event licensing publishes, in declaration order (collected by the package's `allEvents`). */
export const licensingEvents = [...licenseRequestEvents, ...licenseEvents, logEntryAppended] as const;
