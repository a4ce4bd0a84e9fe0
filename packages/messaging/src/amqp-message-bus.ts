import { systemClock, type Clock } from '@svc/clock';
import type { EventEnvelope } from '@svc/contracts/common';
import type { Logger } from '@svc/logger';
import { AmqpConnection } from './amqp/connection';
import { AmqpConsumers } from './amqp/consumers';
import { AmqpDeadLetters, type AmqpDeadLetter } from './amqp/dead-letters';
import { AmqpPublisher } from './amqp/publisher';
import { assertQueueTopology, DEFAULT_MAX_ATTEMPTS, type AmqpExchanges } from './amqp/wire';
import type { ConsumerStats, DeadLetterSummary, MessageBus, Subscription } from './message-bus';
import type { RetryBackoff } from './retry-backoff';

export type { AmqpDeadLetter } from './amqp/dead-letters';

export interface AmqpMessageBusOptions {
  /** `amqp://user:password@host:5672/vhost`. */
  url: string;
  /** The durable topic exchange of domain events (default `svc.events`). */
  exchange?: string;
  logger: Logger;
  /** Shown in the RabbitMQ management UI, e.g. the service name. */
  connectionName?: string;
  /** How long `publish` (and `subscribe`) wait for a connection and a confirm (default 10 s). */
  publishTimeoutMs?: number;
  /** Delay between reconnection attempts (default 100 ms doubling up to 5 s). */
  reconnectBackoff?: RetryBackoff;
  /** Delay before a failed message is redelivered (default 100 ms doubling up to 2 s). */
  retryBackoff?: RetryBackoff;
  /** Delay between retries while a dependency is unavailable (default 100 ms doubling up to 1 s). */
  transientBackoff?: RetryBackoff;
  /**
   * How long a consumer holds a message it cannot handle for want of a dependency before moving
   * it to the back of its queue (default 60 s): well under RabbitMQ's consumer timeout (30 min),
   * which would close the channel and count a delivery.
   */
  transientHoldMs?: number;
  /** Stamps dead letters (default the system clock). */
  clock?: Clock;
  /** AMQP heartbeat unless the URL sets one (default 10 s): a silent broker is noticed in ~20 s. */
  heartbeatSeconds?: number;
}

/** A queue declared without a consumer: it binds and keeps messages until one subscribes. */
export interface AmqpQueueDeclaration {
  queue: string;
  patterns: string[];
  maxAttempts?: number;
}

/**
 * The RabbitMQ bus of the cluster mode (amqplib).
 *
 * Topology: one durable topic exchange; per consumer a durable quorum queue named after the
 * subscription, bound to its patterns, dead-lettering into `${queue}.dlq` through the direct
 * exchange `${exchange}.dlx`. Publishing waits for the broker's confirm. Consuming acks only
 * after the handler resolved; a failure is held for a short backoff then requeued as a fresh copy
 * that carries its counts in headers; the last failure, or a poison message, is
 * published to the dead-letter queue with its reason and confirmed before the original is acked.
 * The queue's `x-delivery-limit` backs this up when a consumer dies again and again mid-handler.
 * A transient failure (a dependency unavailable) is not a failed attempt: the consumer holds the
 * message and retries it in place at a capped pace, moving it to the back of the queue (a fresh
 * copy, acked original) after `transientHoldMs`, so an outage of hours dead-letters nothing.
 * The connection is re-opened with backoff when it drops, re-declaring topology and consumers.
 *
 * Four parts, one file each under `amqp/`: the connection (and its re-opening), the publisher,
 * the consumers, and the dead letters; this class puts them together behind `MessageBus`.
 */
export class AmqpMessageBus implements MessageBus {
  private readonly exchanges: AmqpExchanges;
  private readonly connection: AmqpConnection;
  private readonly publisher: AmqpPublisher;
  private readonly consumers: AmqpConsumers;
  private readonly deadLetters: AmqpDeadLetters;

  constructor(options: AmqpMessageBusOptions) {
    const exchange = options.exchange ?? 'svc.events';
    this.exchanges = { exchange, deadLetterExchange: `${exchange}.dlx` };
    const waitMs = options.publishTimeoutMs ?? 10_000;
    this.consumers = new AmqpConsumers({
      exchanges: this.exchanges,
      logger: options.logger,
      waitMs,
      ...(options.retryBackoff === undefined ? {} : { retryBackoff: options.retryBackoff }),
      ...(options.transientBackoff === undefined ? {} : { transientBackoff: options.transientBackoff }),
      ...(options.transientHoldMs === undefined ? {} : { transientHoldMs: options.transientHoldMs }),
    });
    this.connection = new AmqpConnection(
      {
        url: options.url,
        exchanges: this.exchanges,
        logger: options.logger,
        connectionName: options.connectionName ?? 'svc-messaging',
        waitMs,
        heartbeatSeconds: options.heartbeatSeconds ?? 10,
        ...(options.reconnectBackoff === undefined ? {} : { reconnectBackoff: options.reconnectBackoff }),
      },
      this.consumers,
    );
    this.deadLetters = new AmqpDeadLetters(
      this.connection,
      this.exchanges.deadLetterExchange,
      options.clock ?? systemClock,
      options.logger,
      (queue) => this.consumers.maxAttemptsOf(queue),
    );
    this.consumers.attach(this.connection, this.deadLetters);
    this.publisher = new AmqpPublisher(this.connection, exchange, waitMs, options.logger);
  }

  /** Creates a bus and waits for its first connection (fails after `publishTimeoutMs`). */
  static async connect(options: AmqpMessageBusOptions): Promise<AmqpMessageBus> {
    const bus = new AmqpMessageBus(options);
    try {
      await bus.start();
    } catch (err) {
      // Nobody will hold this bus: stop its reconnection attempts.
      await bus.close();
      throw err;
    }
    return bus;
  }

  /** Opens the connection (retrying with backoff) and resolves once it is up. */
  async start(): Promise<void> {
    await this.connection.wait();
  }

  isReady(): boolean {
    return this.connection.isReady();
  }

  /**
   * Resolves once RabbitMQ answers a check of the exchange on the publisher channel within
   * `timeoutMs` (a connection first, if there is none), rejects otherwise.
   */
  probe(timeoutMs: number): Promise<void> {
    return this.connection.probe(timeoutMs);
  }

  publish(envelope: EventEnvelope): Promise<void> {
    return this.publisher.publish(envelope);
  }

  /** One round trip of confirms per batch; see `AmqpPublisher.publishBatch`. */
  publishBatch(
    envelopes: EventEnvelope[],
    traceContexts?: Array<Record<string, string> | null>,
  ): Promise<void> {
    return this.publisher.publishBatch(envelopes, traceContexts);
  }

  subscribe(subscription: Subscription): Promise<void> {
    return this.consumers.subscribe(subscription);
  }

  /** Declares a consumer's queue, its bindings and dead-letter queue, without consuming. */
  declareQueue(declaration: AmqpQueueDeclaration): Promise<void> {
    return this.connection.withChannel((channel) =>
      assertQueueTopology(
        channel,
        this.exchanges,
        declaration.queue,
        declaration.patterns,
        declaration.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      ),
    );
  }

  /**
   * Takes up to `max` messages out of `${queue}.dlq` (for operators and tests). Each is removed
   * from the dead-letter queue once read.
   */
  readDeadLetters(queue: string, max = 100): Promise<AmqpDeadLetter[]> {
    return this.deadLetters.read(queue, max);
  }

  deadLetterCount(queue: string): Promise<number> {
    return this.deadLetters.count(queue);
  }

  /** Reads without taking: the messages read are back in the dead-letter queue when this returns. */
  listDeadLetters(queue: string, limit = 100): Promise<DeadLetterSummary[]> {
    return this.deadLetters.list(queue, limit);
  }

  replayDeadLetters(queue: string, limit = 100): Promise<number> {
    return this.deadLetters.replay(queue, limit);
  }

  consumerStats(queue: string): ConsumerStats {
    return this.consumers.stats(queue);
  }

  /** Stops consuming, waits for the handlers in flight, then closes the connection. */
  close(): Promise<void> {
    return this.connection.close(() => this.consumers.stop());
  }
}
