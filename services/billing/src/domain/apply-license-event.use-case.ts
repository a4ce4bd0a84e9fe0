import { entityVersionOf, type EventEnvelope } from '@svc/contracts/common';
import {
  licenseActivated,
  licenseCancelled,
  licenseExpired,
  licenseRenewed,
  licenseRevoked,
  type LicenseSnapshot,
} from '@svc/contracts/licensing';
import { centsFromText } from '@svc/money';
import type { Queryable } from '@svc/ports';
import { fillOnMiss } from '@svc/projection';
import type { LicenseProjection } from './license';
import type { BillingContext, LicenseStore } from './ports';

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
    monthlyFeeCents: centsFromText(data.monthlyFeeCents),
    status,
    validFrom: new Date(data.validFrom),
    expiresAt: new Date(data.expiresAt),
    endedAt: status === 'active' || status === 'pending' ? null : endedAt,
    lastEventAt: new Date(envelope.occurredAt),
    version: entityVersionOf(envelope),
  };
  await licenses.save(tx, license);
}

/**
 * Read-through on a projection miss (ADR 0010): a license activated a moment ago may not have
 * reached the projection yet, so licensing is asked and its answer stored like an event at the
 * license's current version. Nothing is stored when licensing says there is no such license (the
 * caller's lookup then answers 404); SERVICE_UNAVAILABLE when licensing cannot answer.
 */
export async function ensureLicenseProjected(
  ctx: Pick<BillingContext, 'db' | 'licenses' | 'licensing' | 'clock'>,
  licenseId: string,
): Promise<void> {
  await fillOnMiss(
    {
      db: ctx.db,
      source: ctx.licensing,
      isProjected: async (q, id) => (await ctx.licenses.find(q, id)) !== null,
      store: (tx, snapshot) => ctx.licenses.save(tx, licenseOfSnapshot(snapshot, ctx.clock.now())),
    },
    licenseId,
  );
}

function licenseOfSnapshot({ entity, version }: LicenseSnapshot, now: Date): LicenseProjection {
  return {
    id: entity.licenseId,
    boxId: entity.boxId,
    licenseePlatformId: entity.licenseePlatformId,
    licenseePlatformName: entity.licenseePlatformName,
    boxOwnerPlatformId: entity.boxOwnerPlatformId,
    royaltyRate: String(entity.royaltyRate),
    currency: entity.currency,
    monthlyFeeCents: centsFromText(entity.monthlyFeeCents),
    status: entity.status,
    validFrom: new Date(entity.validFrom),
    expiresAt: new Date(entity.expiresAt),
    endedAt: entity.endedAt === null ? null : new Date(entity.endedAt),
    // Events at this version carry instants no later than now: the version alone orders them.
    lastEventAt: now,
    version,
  };
}
