import {
  licenseActivated,
  licenseCancelled,
  licenseExpired,
  licenseRenewed,
  licenseRevoked,
  type EventEnvelope,
} from '@svc/contracts';
import type { Queryable } from '@svc/storage';
import type { LicenseProjection } from './license';
import type { LicenseStore } from './ports';

/** The licensing events the projection follows. */
export const LICENSE_EVENT_TYPES = [
  licenseActivated.type,
  licenseRenewed.type,
  licenseCancelled.type,
  licenseExpired.type,
  licenseRevoked.type,
];

/** When the license stopped being active, by the event that ended it. */
function endedAtOf(envelope: EventEnvelope): Date | null {
  switch (envelope.type) {
    case licenseCancelled.type:
      return new Date(licenseCancelled.parse(envelope).data.effectiveAt);
    case licenseRevoked.type:
      return new Date(envelope.occurredAt);
    case licenseExpired.type:
      return new Date(licenseExpired.parse(envelope).data.expiresAt);
    default:
      return null;
  }
}

/** Keeps billing's copy of a license in step with licensing (an older event never overwrites a newer one). */
export async function applyLicenseEvent(
  licenses: LicenseStore,
  tx: Queryable,
  envelope: EventEnvelope,
): Promise<void> {
  const definition = [
    licenseActivated,
    licenseRenewed,
    licenseCancelled,
    licenseExpired,
    licenseRevoked,
  ].find((d) => d.type === envelope.type);
  if (definition === undefined) return;
  const { data } = definition.parse(envelope);
  const endedAt = endedAtOf(envelope);
  // A cancellation at the end of the billing period leaves the license active until then.
  const status = envelope.type === licenseCancelled.type && data.status === 'active' ? 'active' : data.status;
  const license: LicenseProjection = {
    id: data.licenseId,
    boxId: data.boxId,
    licenseePlatformId: data.licenseePlatformId,
    licenseePlatformName: data.licenseePlatformName,
    boxOwnerPlatformId: data.boxOwnerPlatformId,
    royaltyRate: String(data.royaltyRate),
    currency: data.currency,
    monthlyFeeCents: data.monthlyFeeCents,
    status,
    validFrom: new Date(data.validFrom),
    expiresAt: new Date(data.expiresAt),
    endedAt: status === 'active' || status === 'pending' ? null : endedAt,
    lastEventAt: new Date(envelope.occurredAt),
  };
  await licenses.save(tx, license);
}
