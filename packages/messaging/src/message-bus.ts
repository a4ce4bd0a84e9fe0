import type { EventEnvelope } from '@svc/contracts/common';

/** Facts about one delivery of a message to a consumer. */
export interface DeliveryInfo {
  /** 1 on the first delivery, 2 on the first redelivery, … */
  attempt: number;
  redelivered: boolean;
}

export type MessageHandler = (envelope: EventEnvelope, delivery: DeliveryInfo) => Promise<void>;

/** A consumer's durable queue, bound to the routing-key patterns it wants. */
export interface Subscription {
  /** The consumer's queue name, `<service>.<purpose>`, e.g. `registry.box-stats`. One queue per consumer. */
  queue: string;
  /** Topic patterns (`*` one word, `#` zero or more words), e.g. `licensing.license.*`. */
  patterns: string[];
  /**
   * Resolves: the message is acknowledged. Rejects with a transient failure (`isTransientFailure`
   * of @svc/errors: database or dependency unavailable): the message is kept and retried with
   * backoff capped at about a second for as long as the failure lasts, never dead-lettered for it.
   * Rejects with anything else: retried up to `maxAttempts`, then dead-lettered.
   */
  handler: MessageHandler;
  /** Non-transient failures before the message goes to the dead-letter queue (default 5). */
  maxAttempts?: number;
  /** Unacknowledged messages in flight for this consumer (default 16). */
  prefetch?: number;
}

/** A message that exhausted its attempts, as kept in the dead-letter queue. */
export interface DeadLetter {
  queue: string;
  envelope: EventEnvelope;
  attempts: number;
  reason: string;
}

/** A dead letter as an operator sees it (listing leaves it in place). */
export interface DeadLetterSummary {
  queue: string;
  /** The event's id and type; null when the body was not an event envelope (poison). */
  eventId: string | null;
  type: string | null;
  /** Failed attempts that counted toward the limit. */
  attempts: number;
  reason: string;
  /** When it was dead-lettered, when known. */
  deadLetteredAt: string | null;
}

/** What this process's consumer of one queue has been through (for /metrics). */
export interface ConsumerStats {
  /** Handler runs retried because a dependency was unavailable (not counted toward the limit). */
  transientRetries: number;
  /** Handler runs retried after a non-transient failure (counted toward the limit). */
  failedRetries: number;
  /** Messages this process moved to the dead-letter queue. */
  deadLettered: number;
}

/** Seeing and replaying dead letters, on whichever broker holds them. */
export interface DeadLetterAdmin {
  /** Messages waiting in the dead-letter queue of `queue`. */
  deadLetterCount(queue: string): Promise<number>;
  /** Up to `limit` (default 100) dead letters of `queue`, oldest first, left where they are. */
  listDeadLetters(queue: string, limit?: number): Promise<DeadLetterSummary[]>;
  /**
   * Moves up to `limit` (default 100) dead letters of `queue` back into `queue` alone (not to the
   * other consumers of the event) for a fresh round of attempts; resolves with how many moved.
   * The consumer's processed-message record makes a replay of an applied event a no-op.
   */
  replayDeadLetters(queue: string, limit?: number): Promise<number>;
}

/**
 * The broker, whichever runs it. Delivery is at least once: consumers must be idempotent
 * (see `idempotentHandler`). Publishing resolves only once the message is safe: confirmed by
 * RabbitMQ, or (in process) settled by every queue it was routed to.
 */
export interface MessageBus extends DeadLetterAdmin {
  publish(envelope: EventEnvelope): Promise<void>;
  /**
   * Publishes several events in order with their confirms awaited together (a bus that has no
   * cheaper way leaves it out, and the relay publishes one at a time). Resolves once all are
   * confirmed; otherwise rejects with a `BatchPublishError` that says how many, counted from the
   * first, were confirmed before the first that was not (later ones may have gone out too).
   * `traceContexts[i]`, when given, is the trace the i-th event was written in (tracing on).
   */
  publishBatch?(
    envelopes: EventEnvelope[],
    traceContexts?: Array<Record<string, string> | null>,
  ): Promise<void>;
  /**
   * Resolves once the broker has answered a round trip within `timeoutMs`, rejects otherwise: a
   * connection that hangs (nothing closed, nothing answered) is found only so. The outbox relay
   * asks before it claims rows. A bus that is always reachable (in process) leaves it out.
   */
  probe?(timeoutMs: number): Promise<void>;
  subscribe(subscription: Subscription): Promise<void>;
  /** True while the bus can publish (readiness). */
  isReady(): boolean;
  /** Counters of this process's consumer of `queue` (zeros for a queue it does not consume). */
  consumerStats(queue: string): ConsumerStats;
  /** Stops consuming, waits for handlers in flight, closes the connection. */
  close(): Promise<void>;
}

/** A batch publish that stopped: the first `confirmed` events are safe, the rest are not known to be. */
export class BatchPublishError extends Error {
  override readonly name = 'BatchPublishError';

  constructor(
    readonly confirmed: number,
    override readonly cause: unknown,
  ) {
    super(
      `${confirmed} event(s) of the batch confirmed, then: ${cause instanceof Error ? cause.message : String(cause)}`,
    );
  }
}
