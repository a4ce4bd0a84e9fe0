import { batchedIdempotentHandler, type Subscription } from '@svc/messaging';
import type { Database } from '@svc/storage';
import { dispatchEvent, dispatchEvents } from '../../domain/dispatch-event.use-case';
import type { WebhookContext } from '../../domain/ports';
import { CONSUMED_PATTERNS } from '../../domain/public-events';

export const PLATFORM_EVENTS_QUEUE = 'webhook-dispatcher.platform-events';

/** Events taken at once (and so applied in one transaction, ADR 0021). */
const PREFETCH = 64;

/**
 * Platform-facing events → deliveries; each event once, acked after commit. The events that
 * arrive while a transaction is under way are fanned out together in the next one (group commit).
 */
export function platformEventsSubscription(db: Database, ctx: WebhookContext): Subscription {
  const handle = batchedIdempotentHandler({
    db,
    consumer: PLATFORM_EVENTS_QUEUE,
    clock: ctx.clock,
    // toPublicEvents validates each type with its contracts definition: a bad shape throws here,
    // and the bus retries it, then dead-letters it.
    handle: async (tx, envelope) => {
      await dispatchEvent(ctx, tx, envelope);
    },
    handleBatch: async (tx, items) => {
      await dispatchEvents(
        ctx,
        tx,
        items.map((item) => item.envelope),
      );
    },
    maxBatch: PREFETCH,
  });
  return {
    queue: PLATFORM_EVENTS_QUEUE,
    patterns: CONSUMED_PATTERNS,
    prefetch: PREFETCH,
    handler: async (envelope, delivery) => {
      await handle(envelope, delivery);
      ctx.kick();
    },
  };
}
