import { batchedIdempotentHandler, type Subscription } from '@svc/messaging';
import type { Database } from '@svc/storage';
import { dispatchEvents } from '../../domain/dispatch-event.use-case';
import type { WebhookContext } from '../../domain/ports';
import { CONSUMED_PATTERNS, toPublicEvents } from '../../domain/public-events';

export const PLATFORM_EVENTS_QUEUE = 'webhook-dispatcher.platform-events';

/** Events recorded in one transaction at most; the queue's prefetch is twice this (ADR 0022). */
export const INTAKE_BATCH = 250;

/**
 * Platform-facing events → deliveries; each event once, acked after the transaction that
 * recorded it commits. The messages that arrive while one batch commits are recorded together
 * in the next (group commit: one transaction for up to INTAKE_BATCH events).
 */
export function platformEventsSubscription(db: Database, ctx: WebhookContext): Subscription {
  return {
    queue: PLATFORM_EVENTS_QUEUE,
    patterns: CONSUMED_PATTERNS,
    prefetch: 2 * INTAKE_BATCH,
    handler: batchedIdempotentHandler({
      db,
      consumer: PLATFORM_EVENTS_QUEUE,
      clock: ctx.clock,
      maxBatch: INTAKE_BATCH,
      // toPublicEvents validates each type with its contracts definition: a bad shape throws
      // here, for that message alone, and the bus retries it, then dead-letters it.
      check: (envelope) => void toPublicEvents(envelope),
      handle: async (tx, messages) => {
        await dispatchEvents(
          ctx,
          tx,
          messages.map(({ envelope, traceContext }) => ({ envelope, traceContext })),
        );
      },
      afterCommit: () => ctx.kick(),
    }),
  };
}
