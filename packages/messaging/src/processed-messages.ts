import { systemClock, type Clock } from '@svc/clock';
import type { EventEnvelope } from '@svc/contracts/common';
import { kyselyOn, type Database, type Queryable } from '@svc/storage';
import type { DB } from './db.generated';
import type { DeliveryInfo, MessageHandler } from './message-bus';

export interface IdempotentHandlerOptions<D> {
  db: Database;
  /** Names the consumer (usually its queue): each consumer processes an event once. */
  consumer: string;
  /** Applies the event; runs in the transaction that records it as processed. */
  handle: (tx: Queryable, envelope: EventEnvelope<D>, delivery: DeliveryInfo) => Promise<void>;
  /** Validates the envelope first, e.g. an `EventDefinition` of `@svc/contracts`. */
  event?: { parse(envelope: unknown): EventEnvelope<D> };
  clock?: Clock;
}

/**
 * Wraps a consumer so that a redelivered event is a no-op: recording the event id and applying
 * the event happen in one transaction, and the bus acks only after it commits.
 */
export function idempotentHandler<D = Record<string, unknown>>(
  options: IdempotentHandlerOptions<D>,
): MessageHandler {
  const clock = options.clock ?? systemClock;
  return async (received, delivery) => {
    // A wrong shape throws here: the bus retries, then dead-letters it.
    const envelope =
      options.event === undefined ? (received as EventEnvelope<D>) : options.event.parse(received);
    await options.db.transaction(async (tx) => {
      const inserted = await kyselyOn<DB>(tx)
        .insertInto('processedMessages')
        .values({ consumer: options.consumer, eventId: envelope.id, processedAt: clock.now() })
        .onConflict((conflict) => conflict.columns(['consumer', 'eventId']).doNothing())
        .returning('eventId')
        .execute();
      // Already processed by an earlier delivery: the effect is in place, only the ack was lost.
      if (inserted.length === 0) return;
      await options.handle(tx, envelope, delivery);
    });
  };
}

/** True when `consumer` has already processed the event `eventId`. */
export async function wasProcessed(db: Queryable, consumer: string, eventId: string): Promise<boolean> {
  const found = await kyselyOn<DB>(db)
    .selectFrom('processedMessages')
    .select('eventId')
    .where('consumer', '=', consumer)
    .where('eventId', '=', eventId)
    .executeTakeFirst();
  return found !== undefined;
}
