import { idempotentHandler, type Subscription } from '@svc/messaging';
import type { Database } from '@svc/storage';
import { notifyCreators, type NotifyCreatorsDeps } from '../../domain/notify-creators.use-case';
import { patternsOf } from '@svc/contracts/topology';

export const CREATOR_NOTIFICATIONS_QUEUE = 'gateway.creator-notifications';

/**
 * The gateway's one consumer (#30, ADR 0028): licensing's and enforcement's events become mail to
 * the box owner's people. Each event is applied once (the inbox), its mail written to the outbox in
 * the same transaction; `mailQueued` wakes the relay after the commit.
 */
export function creatorNotificationsSubscription(
  deps: NotifyCreatorsDeps & { db: Database; mailQueued(): void },
): Subscription {
  return {
    queue: CREATOR_NOTIFICATIONS_QUEUE,
    patterns: patternsOf(CREATOR_NOTIFICATIONS_QUEUE),
    handler: async (received, delivery) => {
      let queued = 0;
      await idempotentHandler({
        db: deps.db,
        consumer: CREATOR_NOTIFICATIONS_QUEUE,
        clock: deps.clock,
        handle: async (tx, envelope) => {
          queued = await notifyCreators(deps, tx, envelope);
        },
      })(received, delivery);
      if (queued > 0) deps.mailQueued();
    },
  };
}
