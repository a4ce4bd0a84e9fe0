import { FEE_BASIS, feeCentsOfPeriod } from '@svc/contracts/common';
import type { License, LicenseRequest } from '../../domain/license';
import type { RenewedLicense } from '../../domain/renew-license.use-case';
import { ESTIMATED_REVIEW_TIME } from '../../domain/license';
import type { UsageFigures } from '../../domain/billing.client';
import { amountOf } from '@svc/money';

// The public forms of licenses and license requests (docs/spec/service-interface.md, Resources).

export function createdRequestForm(request: LicenseRequest) {
  return {
    id: request.id,
    boxId: request.boxId,
    status: request.status,
    tier: request.tier,
    submittedAt: request.submittedAt.toISOString(),
    estimatedReviewTime: ESTIMATED_REVIEW_TIME,
    pricing: {
      monthlyFee: request.monthlyFeeCents === null ? null : amountOf(request.monthlyFeeCents),
      royaltyRate: request.royaltyRate,
      currency: request.currency,
    },
  };
}

/** The pending, approved or denied form. */
export function requestForm(request: LicenseRequest, license: License | null) {
  if (request.status === 'approved' && license !== null) {
    return {
      id: request.id,
      status: request.status,
      license: {
        id: license.id,
        tier: license.tier,
        monthlyFee: amountOf(license.monthlyFeeCents),
        validFrom: license.validFrom.toISOString(),
        expiresAt: license.expiresAt.toISOString(),
      },
    };
  }
  if (request.status === 'denied') {
    return {
      id: request.id,
      status: request.status,
      reason: request.reason ?? '',
      deniedAt: (request.decidedAt ?? request.submittedAt).toISOString(),
    };
  }
  return { id: request.id, status: request.status, submittedAt: request.submittedAt.toISOString() };
}

/** A request as the box owner reviews it. */
export function boxRequestForm(request: LicenseRequest) {
  return {
    id: request.id,
    boxId: request.boxId,
    status: request.status,
    tier: request.tier,
    useCase: request.useCase,
    estimatedUsers: request.estimatedUsers,
    message: request.message,
    licenseePlatformId: request.licenseePlatformId,
    licenseePlatformName: request.licenseePlatformName,
    submittedAt: request.submittedAt.toISOString(),
    pricing: {
      monthlyFee: request.monthlyFeeCents === null ? null : amountOf(request.monthlyFeeCents),
      royaltyRate: request.royaltyRate,
      currency: request.currency,
    },
    licenseId: request.licenseId,
    reason: request.reason,
    decidedAt: request.decidedAt?.toISOString() ?? null,
    ...(request.licenseLogEntry ? { licenseLogEntry: { ...request.licenseLogEntry } } : {}),
  };
}

export function licenseListItem(license: License) {
  return {
    id: license.id,
    boxId: license.boxId,
    identityName: license.identityName,
    tier: license.tier,
    status: license.status,
    monthlyFee: amountOf(license.monthlyFeeCents),
    royaltyRate: license.royaltyRate,
    validFrom: license.validFrom.toISOString(),
    expiresAt: license.expiresAt.toISOString(),
    autoRenew: license.autoRenew,
    ...(license.logEntry ? { logEntry: { ...license.logEntry } } : {}),
  };
}

/** Until when the license is (or was) active, as far as its fee goes. */
function activeUntil(license: License): Date {
  if (license.endedAt !== null) return license.endedAt;
  return license.cancelAt !== null && license.cancelAt < license.expiresAt
    ? license.cancelAt
    : license.expiresAt;
}

export function licenseDetail(license: License, period: string, usage: UsageFigures) {
  const periodFee = feeCentsOfPeriod(
    license.monthlyFeeCents,
    license.validFrom,
    activeUntil(license),
    period,
  );
  return {
    ...licenseListItem(license),
    currency: license.currency,
    terms: { ...license.terms },
    usage: {
      currentPeriod: period,
      subscribers: usage.subscribers,
      messages: usage.messages,
      revenue: amountOf(usage.revenueCents),
      royaltyDue: amountOf(usage.royaltyDueCents),
    },
    fees: { basis: FEE_BASIS, currentPeriod: period, currentPeriodFee: amountOf(periodFee) },
  };
}

/** The renewal's answer: the new expiry and the current list price, or the upgrade waiting for review. */
export function renewedForm({ license, previousExpiry, pendingUpgrade }: RenewedLicense) {
  return {
    id: license.id,
    status: license.status,
    previousExpiry: previousExpiry.toISOString(),
    newExpiry: license.expiresAt.toISOString(),
    tier: license.tier,
    monthlyFee: amountOf(license.monthlyFeeCents),
    currency: license.currency,
    ...(pendingUpgrade === null
      ? {}
      : {
          pendingUpgrade: {
            requestId: pendingUpgrade.id,
            tier: pendingUpgrade.tier,
            status: 'pending' as const,
            pricing: {
              monthlyFee:
                pendingUpgrade.monthlyFeeCents === null ? null : amountOf(pendingUpgrade.monthlyFeeCents),
              royaltyRate: pendingUpgrade.royaltyRate,
              currency: pendingUpgrade.currency,
            },
          },
        }),
  };
}

/** The second family's request form (snake_case). */
export function secondFamilyRequestForm(request: LicenseRequest) {
  return {
    request_id: request.id,
    status: request.status,
    ...(request.licenseId === null ? {} : { license_id: request.licenseId }),
    ...(request.reason === null ? {} : { reason: request.reason }),
  };
}
