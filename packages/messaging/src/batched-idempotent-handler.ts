import { systemClock, type Clock } from '@svc/clock';
import type { EventEnvelope } from '@svc/contracts/common';
import { isTransientFailure } from '@svc/errors';
import { currentTraceCarrier, type TraceCarrier } from '@svc/telemetry';
import { kyselyOn, sql, type Database, type Queryable } from '@svc/storage';
import type { DB } from './db.generated';
import type { DeliveryInfo, MessageHandler } from './message-bus';

/** One message of a batch, as the batch handler sees it. */
export interface BatchedMessage<D> {
  envelope: EventEnvelope<D>;
  delivery: DeliveryInfo;
  /** The consumer span's trace context when the message arrived (tracing on), else null. */
  traceContext: TraceCarrier | null;
}

export interface BatchedIdempotentHandlerOptions<D> {
  db: Database;
  /** Names the consumer (usually its queue): each consumer processes an event once. */
  consumer: string;
  /**
   * Applies the events not processed before, in the order they arrived, in the transaction that
   * records them as processed. Throwing rolls the whole batch back (see the class comment).
   */
  handle: (tx: Queryable, messages: Array<BatchedMessage<D>>) => Promise<void>;
  /**
   * Checks one message before it joins a batch (its shape): throwing fails that message alone,
   * so the bus retries and then dead-letters it without holding up the others.
   */
  check?: (envelope: EventEnvelope<D>) => void;
  /** Messages recorded in one transaction at most (default 250). */
  maxBatch?: number;
  /**
   * Batches committing at the same time (default 1: effects commit in arrival order). Two let one
   * batch's round trips and WAL flush overlap the next's; two batches' effects may then commit in
   * either order, as two messages handled concurrently by a plain consumer may.
   */
  maxInFlight?: number;
  /** Called after every committed batch (e.g. to wake what consumes the batch's effects). */
  afterCommit?: (messages: Array<BatchedMessage<D>>) => void;
  clock?: Clock;
}

interface Waiting<D> extends BatchedMessage<D> {
  resolve(): void;
  reject(err: unknown): void;
}

/**
 * An idempotent consumer that records the messages it holds in one transaction (group commit):
 * while one batch commits, the messages the bus hands in meanwhile wait for the next, so under a
 * burst a transaction carries up to `maxBatch` events and their round trips and WAL flush are
 * shared; a lone message still goes at once. The subscription's `prefetch` bounds what can wait:
 * give it `maxBatch` times (`maxInFlight` + 1), so that a batch fills while the others commit.
 *
 * Each message is acked (its handler call resolves) only after the transaction that recorded it
 * committed, so a process killed mid-batch loses nothing: the broker redelivers the unacked
 * messages, and the processed-message rows make those already committed a no-op (as
 * `idempotentHandler`). A transient failure (database unavailable) fails the whole batch and the
 * bus retries each message; any other failure of a batch of several is retried one message per
 * transaction at once, so only the message that causes it fails (and is retried, then
 * dead-lettered, by the bus). With one batch in flight (the default), effects commit in arrival order.
 */
export function batchedIdempotentHandler<D = Record<string, unknown>>(
  options: BatchedIdempotentHandlerOptions<D>,
): MessageHandler {
  const clock = options.clock ?? systemClock;
  const maxBatch = options.maxBatch ?? 250;
  if (!Number.isInteger(maxBatch) || maxBatch < 1)
    throw new RangeError('maxBatch must be a positive integer');
  const maxInFlight = options.maxInFlight ?? 1;
  if (!Number.isInteger(maxInFlight) || maxInFlight < 1)
    throw new RangeError('maxInFlight must be a positive integer');
  const waiting: Array<Waiting<D>> = [];
  let flushing = 0;
  let scheduled = false;

  /** Records the batch as processed and applies the messages new to this consumer, in one transaction. */
  const commit = (batch: Array<Waiting<D>>) =>
    options.db.transaction(async (tx) => {
      const ids = batch.map((m) => m.envelope.id);
      const now = clock.now();
      const inserted = await kyselyOn<DB>(tx)
        .insertInto('processedMessages')
        .columns(['consumer', 'eventId', 'processedAt'])
        .expression(
          sql`SELECT ${options.consumer}::text, id, ${now}::timestamptz FROM unnest(${ids}::text[]) AS u(id)`,
        )
        .onConflict((conflict) => conflict.columns(['consumer', 'eventId']).doNothing())
        .returning('eventId')
        .execute();
      // Already processed by an earlier delivery (only its ack was lost), or twice in this batch:
      // the first of each id applies it.
      const fresh = new Set(inserted.map((row) => row.eventId));
      const apply = batch.filter((m) => fresh.delete(m.envelope.id));
      if (apply.length > 0) await options.handle(tx, apply);
    });

  const settle = (batch: Array<Waiting<D>>, err?: unknown) => {
    for (const m of batch) {
      if (err === undefined) m.resolve();
      else m.reject(err);
    }
  };

  const flush = async (): Promise<void> => {
    const batch = waiting.splice(0, maxBatch);
    try {
      await commit(batch);
      options.afterCommit?.(batch);
      settle(batch);
    } catch (err) {
      if (batch.length === 1 || isTransientFailure(err)) {
        settle(batch, err);
        return;
      }
      // Something in the batch fails: one transaction per message finds which.
      for (const m of batch) {
        try {
          await commit([m]);
          options.afterCommit?.([m]);
          m.resolve();
        } catch (one) {
          m.reject(one);
        }
      }
    }
  };

  const schedule = () => {
    if (scheduled || flushing >= maxInFlight || waiting.length === 0) return;
    scheduled = true;
    // After the bus has handed in every message it holds (it does so in one synchronous loop).
    setImmediate(() => {
      scheduled = false;
      if (flushing >= maxInFlight || waiting.length === 0) return;
      flushing += 1;
      void flush().finally(() => {
        flushing -= 1;
        schedule();
      });
      schedule();
    });
  };

  return (received, delivery) => {
    const envelope = received as EventEnvelope<D>;
    try {
      options.check?.(envelope);
    } catch (err) {
      return Promise.reject(err instanceof Error ? err : new Error(String(err)));
    }
    return new Promise<void>((resolve, reject) => {
      waiting.push({ envelope, delivery, traceContext: currentTraceCarrier() ?? null, resolve, reject });
      schedule();
    });
  };
}
