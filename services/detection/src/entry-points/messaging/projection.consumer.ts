import type { Clock } from '@svc/clock';
import type { EventEnvelope } from '@svc/contracts/common';
import type { Logger } from '@svc/logger';
import type { Subscription } from '@svc/messaging';
import { projectionSubscription } from '@svc/projection';
import type { Database, Queryable } from '@svc/storage';
import { projectLicenseEvent } from '../../domain/project-license-event.use-case';
import { projectRegistryEvent } from '../../domain/project-registry-event.use-case';
import type { IdentityStore, LicenseStore } from '../../domain/ports';

export interface ProjectionConsumerDeps {
  db: Database;
  identities: IdentityStore;
  licenses: LicenseStore;
  clock: Clock;
  logger: Logger;
  outbox(tx: Queryable, ...events: EventEnvelope[]): Promise<void>;
  /** After a registry event commits: this replica reads it into its index before acknowledging. */
  projected(): Promise<unknown>;
}

export const REGISTRY_QUEUE = 'detection.identities';
export const LICENSE_QUEUE = 'detection.licenses';

/** The identity projection (registry.claim.*, registry.box.*) and licenses (licensing.license.*). */
export function projectionSubscriptions(deps: ProjectionConsumerDeps): Subscription[] {
  return [
    projectionSubscription({
      queue: REGISTRY_QUEUE,
      db: deps.db,
      clock: deps.clock,
      apply: (tx, envelope) => projectRegistryEvent(deps, tx, envelope),
      // The change is committed; a failed refresh is repaired by the next sync pass, so it never fails the message.
      afterCommit: () =>
        deps
          .projected()
          .then(() => undefined)
          .catch((err: unknown) => deps.logger.error({ err }, 'index refresh after an event failed')),
    }),
    projectionSubscription({
      queue: LICENSE_QUEUE,
      db: deps.db,
      clock: deps.clock,
      apply: (tx, envelope) => projectLicenseEvent(deps.licenses, tx, envelope),
    }),
  ];
}
