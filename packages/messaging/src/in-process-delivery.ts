import { AsyncLocalStorage } from 'node:async_hooks';
import { systemClock, type Clock } from '@svc/clock';
import { eventEnvelopeSchema, type EventEnvelope } from '@svc/contracts/common';
import { isTransientFailure } from '@svc/errors';
import type { Logger } from '@svc/logger';
import type { MessageHandler } from './message-bus';
import {
  abortableSleep,
  ConsumerCounters,
  describeError,
  retryDelayMs,
  TRANSIENT_RETRY_BACKOFF,
  type RetryBackoff,
} from './retry-backoff';
import type { DeadLetterStore } from './dead-letter-store';
import { consumeInTrace } from './trace-context';

export interface PendingMessage {
  /** The envelope as published, serialised: every delivery parses its own copy, as off the wire. */
  body: string;
  deliveries: number;
  /** Non-transient failures so far: these count toward `maxAttempts`. */
  failures: number;
  /** The publisher's trace context (tracing on), as AMQP headers would carry it. */
  trace?: Record<string, string>;
  resolve(): void;
  reject(err: Error): void;
}

export interface Consumer {
  handler: MessageHandler;
  prefetch: number;
  inFlight: number;
}

export interface QueueState {
  name: string;
  patterns: Set<string>;
  maxAttempts: number;
  consumers: Consumer[];
  /** Round-robin cursor over the consumers, as RabbitMQ spreads a queue over competing consumers. */
  nextConsumer: number;
  ready: PendingMessage[];
  /** Dead letters of this queue being replayed now: a second replay leaves them alone. */
  replaying: Set<number>;
  /** Consecutive transient failures of this queue's handlers: the pace of retries in an outage. */
  outageStreak: number;
}

/** What delivery reads of the bus's options. */
export interface DeliveryOptions {
  logger?: Logger;
  retryBackoff?: RetryBackoff;
  transientBackoff?: RetryBackoff;
  clock?: Clock;
}

/**
 * The in-process bus's deliveries: each queue's ready messages handed to its consumers within
 * their prefetch, round robin, retried (transient failures without counting) and dead-lettered
 * after `maxAttempts`, as RabbitMQ with the AMQP bus's consumers does (ADR 0003).
 */
export class InProcessDelivery {
  /** The deliveries under way: `close` waits for them. */
  readonly inFlight = new Set<Promise<void>>();
  /** The queue whose handler is running, in the handler's async context. */
  readonly handlerContext = new AsyncLocalStorage<string>();
  readonly counters = new ConsumerCounters();
  private readonly closing = new AbortController();
  private closed = false;

  constructor(
    private readonly options: DeliveryOptions,
    private readonly store: DeadLetterStore,
  ) {}

  /** Stops handing out messages and cuts the retry waits short. */
  close(): void {
    this.closed = true;
    this.closing.abort();
  }

  /** Hands the queue's ready messages to its free consumers. */
  dispatch(queue: QueueState): void {
    while (!this.closed && queue.ready.length > 0) {
      const consumer = this.freeConsumer(queue);
      if (consumer === undefined) return;
      const message = queue.ready.shift();
      if (message === undefined) return;
      consumer.inFlight += 1;
      const delivery = this.deliver(queue, consumer, message).finally(() => {
        consumer.inFlight -= 1;
        this.inFlight.delete(delivery);
        this.dispatch(queue);
      });
      this.inFlight.add(delivery);
    }
  }

  private freeConsumer(queue: QueueState): Consumer | undefined {
    const count = queue.consumers.length;
    for (let i = 0; i < count; i += 1) {
      const index = (queue.nextConsumer + i) % count;
      const consumer = queue.consumers[index];
      if (consumer !== undefined && consumer.inFlight < consumer.prefetch) {
        queue.nextConsumer = (index + 1) % count;
        return consumer;
      }
    }
    return undefined;
  }

  private async deliver(queue: QueueState, consumer: Consumer, message: PendingMessage): Promise<void> {
    message.deliveries += 1;
    const attempt = message.deliveries;
    const raw: unknown = JSON.parse(message.body);
    const parsed = eventEnvelopeSchema.safeParse(raw);
    if (!parsed.success) {
      // Poison: no retry can make it valid.
      await this.deadLetter(
        queue,
        message,
        raw,
        message.failures + 1,
        `poison: ${describeError(parsed.error)}`,
      );
      return;
    }
    const counters = this.counters.of(queue.name);
    try {
      const envelope = parsed.data as EventEnvelope;
      await this.handlerContext.run(queue.name, () =>
        consumeInTrace(queue.name, envelope, message.trace, attempt, () =>
          consumer.handler(envelope, { attempt, redelivered: attempt > 1 }),
        ),
      );
      if (queue.outageStreak > 0) {
        this.options.logger?.info({ queue: queue.name }, 'handler succeeded again after transient failures');
        queue.outageStreak = 0;
      }
      message.resolve();
    } catch (err) {
      const reason = describeError(err);
      let delay: number;
      if (isTransientFailure(err)) {
        // A dependency is down: keep the message for as long as it lasts, at a capped pace.
        queue.outageStreak += 1;
        counters.transientRetries += 1;
        const log = queue.outageStreak === 1 ? this.options.logger?.warn : this.options.logger?.debug;
        log?.call(
          this.options.logger,
          { queue: queue.name, eventId: parsed.data.id, attempt, reason },
          'handler failed transiently, will retry without counting the attempt',
        );
        delay = retryDelayMs(queue.outageStreak, {
          ...TRANSIENT_RETRY_BACKOFF,
          ...this.options.transientBackoff,
        });
      } else {
        message.failures += 1;
        if (message.failures >= queue.maxAttempts) {
          await this.deadLetter(queue, message, raw, message.failures, reason);
          return;
        }
        counters.failedRetries += 1;
        this.options.logger?.warn(
          { queue: queue.name, eventId: parsed.data.id, attempt, failures: message.failures, reason },
          'handler failed',
        );
        delay = retryDelayMs(message.failures, this.options.retryBackoff);
      }
      await abortableSleep(delay, this.closing.signal);
      if (this.closed) {
        message.reject(new Error('The in-process message bus closed before the message was handled'));
        return;
      }
      // Back at the head, as RabbitMQ requeues a rejected message near its original position.
      queue.ready.unshift(message);
    }
  }

  /**
   * Keeps the message as a dead letter, then settles it (its outbox row may be marked sent). While
   * the store fails, it keeps trying; a bus closing meanwhile fails the publish instead, so the
   * outbox publishes the message again after the restart.
   */
  private async deadLetter(
    queue: QueueState,
    message: PendingMessage,
    raw: unknown,
    attempts: number,
    reason: string,
  ): Promise<void> {
    const letter = {
      queue: queue.name,
      body: message.body,
      attempts,
      reason,
      deadLetteredAt: (this.options.clock ?? systemClock).now().toISOString(),
    };
    for (let failures = 1; ; failures += 1) {
      try {
        await this.store.keep(letter);
        break;
      } catch (err) {
        this.options.logger?.warn(
          { queue: queue.name, err: describeError(err), failures },
          'a dead letter could not be kept; trying again',
        );
        await abortableSleep(retryDelayMs(failures, TRANSIENT_RETRY_BACKOFF), this.closing.signal);
        if (this.closed) {
          message.reject(new Error('The in-process message bus closed before the dead letter was kept'));
          return;
        }
      }
    }
    this.counters.of(queue.name).deadLettered += 1;
    const eventId = (raw as { id?: unknown } | null)?.id;
    this.options.logger?.error({ queue: queue.name, eventId, attempts, reason }, 'message dead-lettered');
    message.resolve();
  }
}
