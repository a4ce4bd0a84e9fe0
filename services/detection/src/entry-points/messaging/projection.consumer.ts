import type { Clock } from '@svc/clock';
import type { EventEnvelope } from '@svc/contracts/common';
import type { Logger } from '@svc/logger';
import { idempotentHandler, type MessageHandler, type Subscription } from '@svc/messaging';
import type { Database, Queryable } from '@svc/storage';
import { projectLicenseEvent } from '../../domain/project-license-event.use-case';
import { projectRegistryEvent } from '../../domain/project-registry-event.use-case';
import type { IdentityStore, LicenseStore } from '../../domain/ports';
import { patternsOf } from '@svc/contracts/topology';

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

function thenRefresh(handler: MessageHandler, deps: ProjectionConsumerDeps): MessageHandler {
  return async (message, delivery) => {
    await handler(message, delivery);
    // The change is committed; a failed refresh is repaired by the next sync pass, so it never fails the message.
    await deps
      .projected()
      .catch((err: unknown) => deps.logger.error({ err }, 'index refresh after an event failed'));
  };
}

/** The identity projection (registry.claim.*, registry.box.*) and licenses (licensing.license.*). */
export function projectionSubscriptions(deps: ProjectionConsumerDeps): Subscription[] {
  return [
    {
      queue: REGISTRY_QUEUE,
      patterns: patternsOf(REGISTRY_QUEUE),
      handler: thenRefresh(
        idempotentHandler({
          db: deps.db,
          consumer: REGISTRY_QUEUE,
          clock: deps.clock,
          handle: (tx, envelope) => projectRegistryEvent(deps, tx, envelope),
        }),
        deps,
      ),
    },
    {
      queue: LICENSE_QUEUE,
      patterns: patternsOf(LICENSE_QUEUE),
      handler: idempotentHandler({
        db: deps.db,
        consumer: LICENSE_QUEUE,
        clock: deps.clock,
        handle: (tx, envelope) => projectLicenseEvent(deps.licenses, tx, envelope),
      }),
    },
  ];
}
