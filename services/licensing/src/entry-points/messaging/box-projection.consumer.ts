import type { Clock } from '@svc/clock';
import type { Subscription } from '@svc/messaging';
import { projectionSubscription } from '@svc/projection';
import type { Database } from '@svc/storage';
import type { BoxProjectionStore } from '../../domain/ports';
import { projectBoxEvent } from '../../domain/project-box.use-case';

export const BOX_QUEUE = 'licensing.boxes';

/** The box projection (registry.box.*; a deleted claim's box has its own box.deleted), each event applied once. */
export function boxProjectionSubscription(deps: {
  db: Database;
  boxes: BoxProjectionStore;
  clock: Clock;
}): Subscription {
  return projectionSubscription({
    queue: BOX_QUEUE,
    db: deps.db,
    clock: deps.clock,
    apply: (tx, envelope) => projectBoxEvent(deps.boxes, tx, envelope),
  });
}
