import { idempotentHandler, type Subscription } from '@svc/messaging';
import type { Database } from '@svc/storage';
import { appendDecisions, type AppendDeps } from '../../domain/transparency.use-case';
import { LOGGED_EVENTS } from '../../domain/transparency-entries';

export const TRANSPARENCY_QUEUE = 'licensing.transparency';

/**
 * The transparency log's intake (docs/adr/0030): each decision event (boxes, licenses, violations,
 * appeals) is appended in the transaction that records it in the inbox, so an event delivered twice
 * appends once (the log's own source ids make that hold even without the inbox).
 */
export function transparencySubscription(
  deps: AppendDeps & { db: Database; eventsCommitted(): void },
): Subscription {
  const handle = idempotentHandler({
    db: deps.db,
    consumer: TRANSPARENCY_QUEUE,
    clock: deps.clock,
    handle: async (tx, envelope) => {
      await appendDecisions(deps, tx, envelope);
    },
  });
  return {
    queue: TRANSPARENCY_QUEUE,
    patterns: [...LOGGED_EVENTS],
    handler: async (...delivery) => {
      await handle(...delivery);
      // The log_entry.appended events it wrote go out now rather than at the relay's next poll.
      deps.eventsCommitted();
    },
  };
}
