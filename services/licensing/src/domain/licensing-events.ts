import type { EventEnvelope } from '@svc/contracts/common';
import {
  licenseActivated,
  licenseCancelled,
  licenseExpired,
  licenseRenewed,
  licenseRequestApproved,
  licenseRequestCreated,
  licenseRequestDenied,
  licenseRevoked,
} from '@svc/contracts/licensing';
import { centsText } from '@svc/money';
import type { CancelTiming, License, LicenseRequest } from './license';

// Licensing's events, built from the domain objects. The envelope's platformId is the licensee.

function meta(platformId: string, occurredAt: Date) {
  return { platformId, occurredAt };
}

function requestData(request: LicenseRequest) {
  return {
    requestId: request.id,
    boxId: request.boxId,
    claimId: request.claimId,
    identityName: request.identityName,
    tier: request.tier,
    licenseePlatformId: request.licenseePlatformId,
    boxOwnerPlatformId: request.boxOwnerPlatformId,
    submittedAt: request.submittedAt.toISOString(),
  };
}

/** A license as licensing.license.* describes it (also licensing's read-through answer, ADR 0010). */
export function licenseData(license: License) {
  return {
    licenseId: license.id,
    boxId: license.boxId,
    claimId: license.claimId,
    identityName: license.identityName,
    tier: license.tier,
    status: license.status,
    licenseePlatformId: license.licenseePlatformId,
    licenseePlatformName: license.licenseePlatformName,
    boxOwnerPlatformId: license.boxOwnerPlatformId,
    monthlyFeeCents: centsText(license.monthlyFeeCents),
    royaltyRate: license.royaltyRate,
    currency: license.currency,
    validFrom: license.validFrom.toISOString(),
    expiresAt: license.expiresAt.toISOString(),
    autoRenew: license.autoRenew,
  };
}

export function requestCreatedEvent(
  request: LicenseRequest,
  now: Date,
  awaitsReview: boolean,
): EventEnvelope {
  return licenseRequestCreated.create(
    { ...requestData(request), awaitsReview },
    meta(request.licenseePlatformId, now),
  );
}

export function requestApprovedEvent(
  request: LicenseRequest,
  licenseId: string,
  automatic: boolean,
  now: Date,
): EventEnvelope {
  return licenseRequestApproved.create(
    { ...requestData(request), licenseId, approvedAt: now.toISOString(), automatic },
    meta(request.licenseePlatformId, now),
  );
}

export function requestDeniedEvent(request: LicenseRequest, reason: string, now: Date): EventEnvelope {
  return licenseRequestDenied.create(
    { ...requestData(request), reason, deniedAt: now.toISOString() },
    meta(request.licenseePlatformId, now),
  );
}

export function licenseActivatedEvent(license: License, now: Date): EventEnvelope {
  return licenseActivated.create(licenseData(license), meta(license.licenseePlatformId, now));
}

export function licenseRenewedEvent(license: License, previousExpiry: Date, now: Date): EventEnvelope {
  return licenseRenewed.create(
    {
      ...licenseData(license),
      previousExpiry: previousExpiry.toISOString(),
      newExpiry: license.expiresAt.toISOString(),
    },
    meta(license.licenseePlatformId, now),
  );
}

export function licenseCancelledEvent(
  license: License,
  effectiveDate: CancelTiming,
  effectiveAt: Date,
  now: Date,
): EventEnvelope {
  return licenseCancelled.create(
    {
      ...licenseData(license),
      reason: license.cancelReason,
      effectiveDate,
      effectiveAt: effectiveAt.toISOString(),
    },
    meta(license.licenseePlatformId, now),
  );
}

export function licenseExpiredEvent(license: License, now: Date): EventEnvelope {
  return licenseExpired.create(licenseData(license), meta(license.licenseePlatformId, now));
}

export function licenseRevokedEvent(license: License, reason: string | null, now: Date): EventEnvelope {
  return licenseRevoked.create({ ...licenseData(license), reason }, meta(license.licenseePlatformId, now));
}
