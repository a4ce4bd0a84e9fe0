import type { Clock } from '@svc/clock';
import type { Subscription } from '@svc/messaging';
import { projectionSubscription } from '@svc/projection';
import type { Database, Queryable } from '@svc/storage';
import { applyLicenseEvent } from '../../domain/apply-license-event.use-case';
import type { LicenseStore } from '../../domain/ports';

export const LICENSE_PROJECTION_QUEUE = 'billing.license-projection';

/** Licensing's license events feed billing's license projection, each applied once. */
export function licenseProjectionSubscription(deps: {
  db: Database;
  licenses: LicenseStore;
  clock: Clock;
  /** Runs after the event is applied, in its transaction (billing brings the license's fees up to date). */
  afterApply?: (tx: Queryable, licenseId: string) => Promise<void>;
}): Subscription {
  return projectionSubscription({
    queue: LICENSE_PROJECTION_QUEUE,
    db: deps.db,
    clock: deps.clock,
    apply: async (tx, envelope) => {
      await applyLicenseEvent(deps.licenses, tx, envelope);
      const licenseId = (envelope.data as { licenseId?: unknown }).licenseId;
      if (deps.afterApply !== undefined && typeof licenseId === 'string')
        await deps.afterApply(tx, licenseId);
    },
  });
}
