import { batchedIdempotentHandler, type Subscription } from '@svc/messaging';
import type { Database } from '@svc/storage';
import { dispatchEvents } from '../../domain/dispatch-event.use-case';
import type { Delivery, InternalEvent, WebhookContext } from '../../domain/ports';
import { toPublicEvents, type PublicEvent } from '../../domain/public-events';
import { patternsOf } from '@svc/contracts/topology';

export const PLATFORM_EVENTS_QUEUE = 'webhook-dispatcher.platform-events';

/** Events recorded in one transaction at most (ADR 0022). */
export const INTAKE_BATCH = 250;
/** Intake transactions committing at once: one fills while two commit (prefetch 3 x 250). */
const INTAKE_IN_FLIGHT = 2;

/**
 * Platform-facing events → deliveries; each event once, acked after the transaction that
 * recorded it commits. The messages that arrive while one batch commits are recorded together
 * in the next (group commit: one transaction for up to INTAKE_BATCH events).
 */
export function platformEventsSubscription(db: Database, ctx: WebhookContext): Subscription {
  // What each message becomes, worked out once when it is checked and used when its batch commits.
  const publicEvents = new WeakMap<InternalEvent, PublicEvent[]>();
  // The deliveries a batch recorded, under its first message, until it has committed.
  const recorded = new WeakMap<object, Delivery[]>();
  return {
    queue: PLATFORM_EVENTS_QUEUE,
    patterns: patternsOf(PLATFORM_EVENTS_QUEUE),
    prefetch: (INTAKE_IN_FLIGHT + 1) * INTAKE_BATCH,
    handler: batchedIdempotentHandler({
      db,
      consumer: PLATFORM_EVENTS_QUEUE,
      clock: ctx.clock,
      maxBatch: INTAKE_BATCH,
      maxInFlight: INTAKE_IN_FLIGHT,
      // toPublicEvents validates each type with its contracts definition: a bad shape throws
      // here, for that message alone, and the bus retries it, then dead-letters it.
      check: (envelope) => void publicEvents.set(envelope, toPublicEvents(envelope)),
      handle: async (tx, messages) => {
        const deliveries = await dispatchEvents(
          ctx,
          tx,
          messages.map(({ envelope, traceContext }) => ({
            events: publicEvents.get(envelope) ?? toPublicEvents(envelope),
            traceContext,
          })),
        );
        const first = messages[0];
        if (first !== undefined) recorded.set(first, deliveries);
      },
      // Committed: the worker gets the deliveries in memory (ADR 0036); their leases are taken in
      // the database when it has room, and what the database says is due is what it sends.
      afterCommit: (messages) => {
        const deliveries = messages.flatMap((m) => {
          const found = recorded.get(m) ?? [];
          recorded.delete(m);
          return found;
        });
        ctx.handOff(deliveries);
      },
    }),
  };
}
