import { errors } from '@svc/errors';
import type { Cents } from '@svc/money';

export type Tier = 'personal' | 'creator' | 'commercial' | 'enterprise';
export type LicenseStatus = 'pending' | 'active' | 'expired' | 'revoked' | 'cancelled';
export type RequestStatus = 'pending' | 'approved' | 'denied';
export type CancelTiming = 'immediate' | 'end_of_billing_period';

/** What a license grants, fixed at approval. */
export interface LicenseTerms {
  maxUsers: number | null;
  contentGuidelines: string | null;
  nsfw: boolean;
  exclusivity: boolean;
  territory: string;
}

/** The text estimate of a review (docs/spec/service-interface.md, Limits). */
export const ESTIMATED_REVIEW_TIME = '48-72 hours';
/** A license runs one month from approval unless the request asks for another term. */
export const DEFAULT_TERM_MONTHS = 1;
export const DEFAULT_AUTO_RENEW = true;

export interface LicenseRequest {
  /** Read with the box owner's list: where the granted license's newest decision is logged. */
  licenseLogEntry?: LogEntryRef | null;
  id: string;
  boxId: string;
  claimId: string;
  identityName: string;
  boxOwnerPlatformId: string;
  licenseePlatformId: string;
  licenseePlatformName: string;
  tier: Tier;
  useCase: string;
  estimatedUsers: number | null;
  message: string | null;
  termMonths: number;
  autoRenew: boolean;
  /** From the owner's price list; null until the owner prices it at approval (enterprise). */
  monthlyFeeCents: Cents | null;
  royaltyRate: number;
  currency: string;
  terms: LicenseTerms;
  status: RequestStatus;
  submittedAt: Date;
  decidedAt: Date | null;
  reason: string | null;
  licenseId: string | null;
  /** A renewal's upgrade of this license to a tier that needs the owner's review. */
  upgradeOfLicenseId: string | null;
}

export interface License {
  id: string;
  requestId: string;
  boxId: string;
  claimId: string;
  identityName: string;
  boxOwnerPlatformId: string;
  licenseePlatformId: string;
  licenseePlatformName: string;
  tier: Tier;
  status: LicenseStatus;
  monthlyFeeCents: Cents;
  royaltyRate: number;
  currency: string;
  terms: LicenseTerms;
  termMonths: number;
  autoRenew: boolean;
  validFrom: Date;
  expiresAt: Date;
  /** A cancellation scheduled for the end of the billing period. */
  cancelAt: Date | null;
  cancelReason: string | null;
  endedAt: Date | null;
  createdAt: Date;
  /** The newest decision about it in the transparency log, once appended (docs/spec/contracts.md §16). */
  logEntry?: LogEntryRef | null;
}

/** Where a logged decision sits: its leaf index and its leaf hash (base64). */
export interface LogEntryRef {
  index: number;
  leafHash: string;
}

/** Only a pending request can be decided. */
export function assertDecidable(request: Pick<LicenseRequest, 'id' | 'status'>): void {
  if (request.status !== 'pending') {
    throw errors.invalidState(`License request ${request.id} is already ${request.status}`, {
      status: request.status,
    });
  }
}

/** Renewing, cancelling and revoking need an active license. */
export function assertActive(license: Pick<License, 'id' | 'status'>, action: string): void {
  if (license.status !== 'active') {
    throw errors.invalidState(`License ${license.id} is ${license.status}: it cannot be ${action}`, {
      status: license.status,
    });
  }
}

/** The same instant `months` calendar months later (UTC), clamped to the month's last day. */
export function addMonths(from: Date, months: number): Date {
  const result = new Date(from.getTime());
  const day = result.getUTCDate();
  result.setUTCDate(1);
  result.setUTCMonth(result.getUTCMonth() + months);
  const lastDay = new Date(Date.UTC(result.getUTCFullYear(), result.getUTCMonth() + 1, 0)).getUTCDate();
  result.setUTCDate(Math.min(day, lastDay));
  return result;
}

/** The billing period of an instant, `YYYY-MM` (UTC). */
export function periodOf(at: Date): string {
  return at.toISOString().slice(0, 7);
}

/**
 * When an `end_of_billing_period` cancellation takes effect: the end of the calendar month (UTC)
 * that contains `now`, or the expiry when that comes first (a cancelled license does not renew).
 */
export function scheduledCancellationAt(now: Date, expiresAt: Date): Date {
  const end = endOfBillingPeriod(now);
  return end.getTime() < expiresAt.getTime() ? end : expiresAt;
}

/** The end of the billing period (calendar month, UTC) that contains `at`. */
export function endOfBillingPeriod(at: Date): Date {
  return new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth() + 1, 1));
}

/** The license an approved request grants: active from `now` for the requested term. */
export function licenseFromRequest(request: LicenseRequest, id: string, now: Date): License {
  return {
    id,
    requestId: request.id,
    boxId: request.boxId,
    claimId: request.claimId,
    identityName: request.identityName,
    boxOwnerPlatformId: request.boxOwnerPlatformId,
    licenseePlatformId: request.licenseePlatformId,
    licenseePlatformName: request.licenseePlatformName,
    tier: request.tier,
    status: 'active',
    // grantLicense prices an owner-priced request before it gets here.
    monthlyFeeCents: request.monthlyFeeCents ?? 0n,
    royaltyRate: request.royaltyRate,
    currency: request.currency,
    terms: request.terms,
    termMonths: request.termMonths,
    autoRenew: request.autoRenew,
    validFrom: now,
    expiresAt: addMonths(now, request.termMonths),
    cancelAt: null,
    cancelReason: null,
    endedAt: null,
    createdAt: now,
  };
}

/** What the expiry job does with an active license at `now`. */
export type DueAction = 'cancel' | 'renew' | 'expire' | 'none';

export function dueAction(
  license: Pick<License, 'status' | 'cancelAt' | 'expiresAt' | 'autoRenew'>,
  now: Date,
): DueAction {
  if (license.status !== 'active') return 'none';
  if (license.cancelAt !== null && license.cancelAt.getTime() <= now.getTime()) return 'cancel';
  if (license.expiresAt.getTime() > now.getTime()) return 'none';
  return license.autoRenew ? 'renew' : 'expire';
}
