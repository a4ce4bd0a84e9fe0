import type { Clock } from '@svc/clock';
import { logEntryAppended } from '@svc/contracts/licensing';
import { idempotentHandler, type Subscription } from '@svc/messaging';
import type { Database } from '@svc/storage';
import type { BoxStore } from '../../domain/ports';
import { patternsOf } from '@svc/contracts/topology';

export const LOG_ENTRIES_QUEUE = 'registry.log-entries';

/**
 * licensing.log_entry.appended about a box (created, removed): the box carries the entry's position
 * as its `logEntry` (docs/spec/contracts.md §16). Entries about other resources are someone else's.
 */
export function logEntriesSubscription(deps: {
  db: Database;
  boxes: Pick<BoxStore, 'recordLogEntry'>;
  clock: Clock;
}): Subscription {
  return {
    queue: LOG_ENTRIES_QUEUE,
    patterns: patternsOf(LOG_ENTRIES_QUEUE),
    handler: idempotentHandler({
      db: deps.db,
      consumer: LOG_ENTRIES_QUEUE,
      clock: deps.clock,
      handle: async (tx, envelope) => {
        const { data } = logEntryAppended.parse(envelope);
        if (data.resourceType !== 'box') return;
        await deps.boxes.recordLogEntry(tx, data.resourceId, { index: data.index, leafHash: data.leafHash });
      },
    }),
  };
}
