import type { Clock } from '@svc/clock';
import { idempotentHandler, type Subscription } from '@svc/messaging';
import type { Database } from '@svc/storage';
import type { BoxProjectionStore, UsageStore } from '../../domain/ports';
import { projectBoxEvent } from '../../domain/project-box.use-case';
import { recordUsageEvent } from '../../domain/record-usage.use-case';

export interface LicensingConsumerDeps {
  db: Database;
  boxes: BoxProjectionStore;
  usage: UsageStore;
  clock: Clock;
}

export const BOX_QUEUE = 'licensing.boxes';
export const USAGE_QUEUE = 'licensing.usage';

/**
 * The box projection (registry.box.*; a deleted claim's box has its own box.deleted) and the
 * usage figures (billing.usage.reported); each event is applied once per queue.
 */
export function licensingSubscriptions(deps: LicensingConsumerDeps): Subscription[] {
  return [
    {
      queue: BOX_QUEUE,
      patterns: ['registry.box.*'],
      handler: idempotentHandler({
        db: deps.db,
        consumer: BOX_QUEUE,
        clock: deps.clock,
        handle: (tx, envelope) => projectBoxEvent(deps.boxes, tx, envelope),
      }),
    },
    {
      queue: USAGE_QUEUE,
      patterns: ['billing.usage.reported'],
      handler: idempotentHandler({
        db: deps.db,
        consumer: USAGE_QUEUE,
        clock: deps.clock,
        handle: (tx, envelope) => recordUsageEvent(deps.usage, tx, envelope),
      }),
    },
  ];
}
