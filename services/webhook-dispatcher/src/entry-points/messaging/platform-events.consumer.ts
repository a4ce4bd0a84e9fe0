import { idempotentHandler, type Subscription } from '@svc/messaging';
import type { Database } from '@svc/storage';
import { dispatchEvent } from '../../domain/dispatch-event.use-case';
import type { WebhookContext } from '../../domain/ports';
import { CONSUMED_PATTERNS } from '../../domain/public-events';

export const PLATFORM_EVENTS_QUEUE = 'webhook-dispatcher.platform-events';

/** Platform-facing events → deliveries; each event once (idempotentHandler), acked after commit. */
export function platformEventsSubscription(db: Database, ctx: WebhookContext): Subscription {
  const handle = idempotentHandler({
    db,
    consumer: PLATFORM_EVENTS_QUEUE,
    clock: ctx.clock,
    // toPublicEvents validates each type with its contracts definition: a bad shape throws here,
    // and the bus retries it, then dead-letters it.
    handle: async (tx, envelope) => {
      await dispatchEvent(ctx, tx, envelope);
    },
  });
  return {
    queue: PLATFORM_EVENTS_QUEUE,
    patterns: CONSUMED_PATTERNS,
    handler: async (envelope, delivery) => {
      await handle(envelope, delivery);
      ctx.kick();
    },
  };
}
