import type { Clock } from '@svc/clock';
import type { EventEnvelope } from '@svc/contracts/common';
import { patternsOf } from '@svc/contracts/topology';
import { idempotentHandler, type Subscription } from '@svc/messaging';
import type { Database, Queryable } from '@svc/ports';

export interface ProjectionConsumer {
  /** The consumer's queue: its patterns are the ones the system's event topology binds to it. */
  queue: string;
  db: Database;
  clock: Clock;
  /** Applies one event, in the transaction that records it as processed (once per queue). */
  apply(tx: Queryable, envelope: EventEnvelope): Promise<void>;
  /** After the event's transaction commits (a replica reads the change, a waiting worker wakes). */
  afterCommit?(): Promise<void> | void;
}

/**
 * The subscription that feeds a projection: bound to the patterns `@svc/contracts/topology` gives
 * its queue (written once, there), each event applied once (the inbox) in its own transaction.
 */
export function projectionSubscription(consumer: ProjectionConsumer): Subscription {
  const handler = idempotentHandler({
    db: consumer.db,
    consumer: consumer.queue,
    clock: consumer.clock,
    handle: (tx, envelope) => consumer.apply(tx, envelope),
  });
  const { afterCommit } = consumer;
  return {
    queue: consumer.queue,
    patterns: patternsOf(consumer.queue),
    handler:
      afterCommit === undefined
        ? handler
        : async (envelope, delivery) => {
            await handler(envelope, delivery);
            await afterCommit();
          },
  };
}
