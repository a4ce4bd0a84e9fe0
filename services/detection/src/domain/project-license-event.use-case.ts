import { entityVersionOf, type EventEnvelope } from '@svc/contracts/common';
import { licenseEvents } from '@svc/contracts/licensing';
import type { Queryable } from '@svc/ports';
import type { LicenseStore } from './ports';

/** Keeps the licenses detection needs (LICENSE boxes allow platforms holding an active one). */
export async function projectLicenseEvent(
  licenses: LicenseStore,
  tx: Queryable,
  envelope: EventEnvelope,
): Promise<void> {
  const definition = licenseEvents.find((event) => event.type === envelope.type);
  if (!definition) return;
  const { data, occurredAt } = definition.parse(envelope);
  await licenses.upsert(tx, {
    licenseId: data.licenseId,
    boxId: data.boxId,
    licenseePlatformId: data.licenseePlatformId,
    tier: data.tier,
    status: data.status,
    expiresAt: new Date(data.expiresAt),
    updatedAt: new Date(occurredAt),
    // The license's version orders its events (ADR 0010); the instant only among unversioned ones.
    version: entityVersionOf(envelope),
  });
}
