import type { Clock } from '@svc/clock';
import { idempotentHandler, type Subscription } from '@svc/messaging';
import type { Database } from '@svc/storage';
import { applyLicenseEvent, LICENSE_EVENT_TYPES } from '../../domain/apply-license-event.use-case';
import type { LicenseStore } from '../../domain/ports';

export const LICENSE_PROJECTION_QUEUE = 'billing.license-projection';

/** Licensing's license events feed billing's license projection, each applied once. */
export function licenseProjectionSubscription(deps: {
  db: Database;
  licenses: LicenseStore;
  clock: Clock;
}): Subscription {
  return {
    queue: LICENSE_PROJECTION_QUEUE,
    patterns: [...LICENSE_EVENT_TYPES],
    handler: idempotentHandler({
      db: deps.db,
      consumer: LICENSE_PROJECTION_QUEUE,
      clock: deps.clock,
      handle: (tx, envelope) => applyLicenseEvent(deps.licenses, tx, envelope),
    }),
  };
}
