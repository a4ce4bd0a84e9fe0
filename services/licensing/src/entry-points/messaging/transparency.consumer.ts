import { batchedIdempotentHandler, type Subscription } from '@svc/messaging';
import type { Database } from '@svc/storage';
import { appendDecisions, type AppendDeps } from '../../domain/transparency.use-case';
import { decisionsOf } from '../../domain/transparency-entries';
import { patternsOf } from '@svc/contracts/topology';

export const TRANSPARENCY_QUEUE = 'licensing.transparency';

/** Events appended in one transaction at most: the log's lock and round trips are paid per batch. */
export const TRANSPARENCY_BATCH = 250;

/**
 * The transparency log's intake (docs/adr/0030): the decision events (boxes, licenses, violations,
 * appeals) that arrive together are appended in one transaction that also records them in the
 * inbox (group commit), so an event delivered twice appends once (the log's own source ids make
 * that hold even without the inbox), and the log keeps up with the event rate of the system. One
 * batch at a time: entries follow the order the events arrived in.
 */
export function transparencySubscription(
  deps: AppendDeps & { db: Database; eventsCommitted(): void },
): Subscription {
  return {
    queue: TRANSPARENCY_QUEUE,
    patterns: patternsOf(TRANSPARENCY_QUEUE),
    prefetch: 2 * TRANSPARENCY_BATCH,
    handler: batchedIdempotentHandler({
      db: deps.db,
      consumer: TRANSPARENCY_QUEUE,
      clock: deps.clock,
      maxBatch: TRANSPARENCY_BATCH,
      // A malformed event fails alone (retried, then dead-lettered), not the batch it would join.
      check: (envelope) => void decisionsOf(envelope),
      handle: async (tx, messages) => {
        await appendDecisions(
          deps,
          tx,
          messages.map((m) => m.envelope),
        );
      },
      // The log_entry.appended events written go out now rather than at the relay's next poll.
      afterCommit: () => deps.eventsCommitted(),
    }),
  };
}
