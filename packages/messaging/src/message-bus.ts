import type { EventEnvelope } from '@svc/contracts';

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
  /** Resolves: the message is acknowledged. Rejects: it is retried, then dead-lettered. */
  handler: MessageHandler;
  /** Deliveries before the message goes to the dead-letter queue (default 5). */
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

/**
 * The broker, whichever runs it. Delivery is at least once: consumers must be idempotent
 * (see `idempotentHandler`). Publishing resolves only once the message is safe: confirmed by
 * RabbitMQ, or (in process) settled by every queue it was routed to.
 */
export interface MessageBus {
  publish(envelope: EventEnvelope): Promise<void>;
  subscribe(subscription: Subscription): Promise<void>;
  /** True while the bus can publish (readiness). */
  isReady(): boolean;
  /** Stops consuming, waits for handlers in flight, closes the connection. */
  close(): Promise<void>;
}
