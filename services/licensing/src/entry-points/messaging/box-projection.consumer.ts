import type { Clock } from '@svc/clock';
import { idempotentHandler, type Subscription } from '@svc/messaging';
import type { Database } from '@svc/storage';
import type { BoxProjectionStore } from '../../domain/ports';
import { projectBoxEvent } from '../../domain/project-box.use-case';
import { patternsOf } from '@svc/contracts/topology';

export const BOX_QUEUE = 'licensing.boxes';

/** The box projection (registry.box.*; a deleted claim's box has its own box.deleted), each event applied once. */
export function boxProjectionSubscription(deps: {
  db: Database;
  boxes: BoxProjectionStore;
  clock: Clock;
}): Subscription {
  return {
    queue: BOX_QUEUE,
    patterns: patternsOf(BOX_QUEUE),
    handler: idempotentHandler({
      db: deps.db,
      consumer: BOX_QUEUE,
      clock: deps.clock,
      handle: (tx, envelope) => projectBoxEvent(deps.boxes, tx, envelope),
    }),
  };
}
