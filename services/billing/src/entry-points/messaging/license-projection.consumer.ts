import type { Clock } from '@svc/clock';
import { idempotentHandler, type Subscription } from '@svc/messaging';
import type { Database, Queryable } from '@svc/storage';
import { applyLicenseEvent } from '../../domain/apply-license-event.use-case';
import type { LicenseStore } from '../../domain/ports';
import { patternsOf } from '@svc/contracts/topology';

export const LICENSE_PROJECTION_QUEUE = 'billing.license-projection';

/** Licensing's license events feed billing's license projection, each applied once. */
export function licenseProjectionSubscription(deps: {
  db: Database;
  licenses: LicenseStore;
  clock: Clock;
  /** Runs after the event is applied, in its transaction (billing brings the license's fees up to date). */
  afterApply?: (tx: Queryable, licenseId: string) => Promise<void>;
}): Subscription {
  return {
    queue: LICENSE_PROJECTION_QUEUE,
    patterns: patternsOf(LICENSE_PROJECTION_QUEUE),
    handler: idempotentHandler({
      db: deps.db,
      consumer: LICENSE_PROJECTION_QUEUE,
      clock: deps.clock,
      handle: async (tx, envelope) => {
        await applyLicenseEvent(deps.licenses, tx, envelope);
        const licenseId = (envelope.data as { licenseId?: unknown }).licenseId;
        if (deps.afterApply !== undefined && typeof licenseId === 'string')
          await deps.afterApply(tx, licenseId);
      },
    }),
  };
}
