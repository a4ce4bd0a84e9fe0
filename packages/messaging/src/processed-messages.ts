import { systemClock, type Clock } from '@svc/clock';
import type { EventEnvelope } from '@svc/contracts';
import type { Database, Queryable } from '@svc/storage';
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
      const inserted = await tx.query(
        `INSERT INTO processed_messages (consumer, event_id, processed_at) VALUES ($1, $2, $3)
         ON CONFLICT (consumer, event_id) DO NOTHING RETURNING event_id`,
        [options.consumer, envelope.id, clock.now().toISOString()],
      );
      // Already processed by an earlier delivery: the effect is in place, only the ack was lost.
      if (inserted.rows.length === 0) return;
      await options.handle(tx, envelope, delivery);
    });
  };
}

/** True when `consumer` has already processed the event `eventId`. */
export async function wasProcessed(db: Queryable, consumer: string, eventId: string): Promise<boolean> {
  const result = await db.query('SELECT 1 FROM processed_messages WHERE consumer = $1 AND event_id = $2', [
    consumer,
    eventId,
  ]);
  return result.rows.length > 0;
}

export interface BatchedIdempotentHandlerOptions<D> extends IdempotentHandlerOptions<D> {
  /**
   * Applies the new events of a batch at once (default: `handle` on each in turn); runs in the
   * transaction that records them as processed.
   */
  handleBatch?: (
    tx: Queryable,
    items: Array<{ envelope: EventEnvelope<D>; delivery: DeliveryInfo }>,
  ) => Promise<void>;
  /** Most messages in one transaction (default 100). */
  maxBatch?: number;
}

interface Waiting<D> {
  received: EventEnvelope;
  envelope: EventEnvelope<D>;
  delivery: DeliveryInfo;
  resolve: () => void;
  reject: (err: unknown) => void;
}

/**
 * `idempotentHandler` with group commit: messages that arrive while a transaction is under way
 * (as many as the consumer's prefetch) are applied together in the next one, each still acked only
 * after the transaction that records it committed. One commit per batch instead of per message
 * is what lets a consumer keep up with a burst (ADR 0021). If a batch fails, its messages are
 * applied one at a time, so one bad event fails alone and the rest go through.
 */
export function batchedIdempotentHandler<D = Record<string, unknown>>(
  options: BatchedIdempotentHandlerOptions<D>,
): MessageHandler {
  const clock = options.clock ?? systemClock;
  const maxBatch = options.maxBatch ?? 100;
  const single = idempotentHandler(options);
  const waiting: Array<Waiting<D>> = [];
  let flushing = false;

  const applyBatch = async (batch: Array<Waiting<D>>): Promise<void> => {
    await options.db.transaction(async (tx) => {
      const inserted = await tx.query<{ event_id: string }>(
        `INSERT INTO processed_messages (consumer, event_id, processed_at)
         SELECT $1, id, $3 FROM unnest($2::text[]) AS id
         ON CONFLICT (consumer, event_id) DO NOTHING RETURNING event_id`,
        [options.consumer, batch.map((item) => item.envelope.id), clock.now().toISOString()],
      );
      // Already processed (an earlier delivery, or the same event twice in this batch): skipped.
      const fresh = new Set(inserted.rows.map((row) => row.event_id));
      const items = batch.filter((item) => fresh.delete(item.envelope.id));
      if (options.handleBatch !== undefined) await options.handleBatch(tx, items);
      else for (const item of items) await options.handle(tx, item.envelope, item.delivery);
    });
  };

  const flush = async (): Promise<void> => {
    if (flushing) return;
    flushing = true;
    try {
      while (waiting.length > 0) {
        const batch = waiting.splice(0, maxBatch);
        try {
          await applyBatch(batch);
          for (const item of batch) item.resolve();
        } catch (err) {
          if (batch.length === 1) batch[0]?.reject(err);
          else for (const item of batch) single(item.received, item.delivery).then(item.resolve, item.reject);
        }
      }
    } finally {
      flushing = false;
    }
  };

  return async (received, delivery) => {
    // A wrong shape throws here: the bus retries, then dead-letters it.
    const envelope =
      options.event === undefined ? (received as EventEnvelope<D>) : options.event.parse(received);
    await new Promise<void>((resolve, reject) => {
      waiting.push({ received, envelope, delivery, resolve, reject });
      void flush();
    });
  };
}
