// The RabbitMQ bus's consumers: a confirm channel per subscription, each message acked only once
// its handler resolved; a failure retried as a fresh copy at the back of the queue, the last one
// (or poison) dead-lettered; a dependency's outage held in place without counting an attempt.
import type { ChannelModel, ConfirmChannel, ConsumeMessage } from 'amqplib';
import { eventEnvelopeSchema, type EventEnvelope } from '@svc/contracts/common';
import { isTransientFailure } from '@svc/errors';
import type { Logger } from '@svc/logger';
import type { ConsumerStats, Subscription } from '../message-bus';
import {
  abortableSleep,
  ConsumerCounters,
  describeError,
  retryDelayMs,
  TRANSIENT_RETRY_BACKOFF,
  type RetryBackoff,
} from '../retry-backoff';
import { consumeInTrace } from '../trace-context';
import type { AmqpConnection, ConnectionListener } from './connection';
import type { AmqpDeadLetters } from './dead-letters';
import {
  assertQueueTopology,
  copyProperties,
  DEFAULT_MAX_ATTEMPTS,
  deliveryCount,
  HEADER_PRIOR_DELIVERIES,
  HEADER_PRIOR_FAILURES,
  HEADER_ROUTING_KEY,
  headerNumber,
  publishConfirmed,
  settle,
  withoutBrokerHeaders,
  type AmqpExchanges,
} from './wire';

export interface AmqpConsumerOptions {
  exchanges: AmqpExchanges;
  logger: Logger;
  /** How long `subscribe` waits for a connection. */
  waitMs: number;
  retryBackoff?: RetryBackoff;
  transientBackoff?: RetryBackoff;
  transientHoldMs?: number;
}

interface ConsumerState {
  subscription: Subscription;
  maxAttempts: number;
  prefetch: number;
  channel?: ConfirmChannel;
  consumerTag?: string;
  /** Consecutive transient failures of this consumer's handlers: the pace of retries in an outage. */
  outageStreak: number;
}

const DEFAULT_PREFETCH = 16;
const DEFAULT_TRANSIENT_HOLD_MS = 60_000;

export class AmqpConsumers implements ConnectionListener {
  private readonly consumers: ConsumerState[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private readonly counters = new ConsumerCounters();
  private connection!: AmqpConnection;
  private deadLetters!: AmqpDeadLetters;

  constructor(private readonly options: AmqpConsumerOptions) {}

  /** The connection they run on and where their dead letters go (the two need each other). */
  attach(connection: AmqpConnection, deadLetters: AmqpDeadLetters): void {
    this.connection = connection;
    this.deadLetters = deadLetters;
  }

  async subscribe(subscription: Subscription): Promise<void> {
    const state: ConsumerState = {
      subscription,
      maxAttempts: subscription.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      prefetch: subscription.prefetch ?? DEFAULT_PREFETCH,
      outageStreak: 0,
    };
    if (!Number.isInteger(state.maxAttempts) || state.maxAttempts < 1) {
      throw new RangeError('maxAttempts must be a positive integer');
    }
    if (!Number.isInteger(state.prefetch) || state.prefetch < 1)
      throw new RangeError('prefetch must be a positive integer');
    const deadline = performance.now() + this.options.waitMs;
    for (;;) {
      const current = await this.connection.wait(deadline);
      try {
        await this.start(current.model, state);
        this.consumers.push(state);
        return;
      } catch (err) {
        // A refusal on a healthy connection (e.g. the queue exists with other arguments) is final;
        // a connection lost half-way is retried on the next one.
        if (
          this.connection.isCurrent(current) ||
          this.connection.isClosing() ||
          performance.now() >= deadline
        )
          throw err;
      }
    }
  }

  /** The attempts the consumer of `queue` allows, if it consumes here. */
  maxAttemptsOf(queue: string): number | undefined {
    return this.consumers.find((consumer) => consumer.subscription.queue === queue)?.maxAttempts;
  }

  stats(queue: string): ConsumerStats {
    return this.counters.snapshot(queue);
  }

  /** Stops consuming and waits for the handlers in flight. */
  async stop(): Promise<void> {
    for (const consumer of this.consumers) {
      if (consumer.channel !== undefined && consumer.consumerTag !== undefined) {
        await consumer.channel.cancel(consumer.consumerTag).catch(() => undefined);
      }
    }
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
  }

  // ---- ConnectionListener --------------------------------------------------------------------

  async opened(model: ChannelModel): Promise<void> {
    for (const consumer of this.consumers) await this.start(model, consumer);
  }

  lost(): void {
    for (const consumer of this.consumers) {
      consumer.channel = undefined;
      consumer.consumerTag = undefined;
    }
  }

  count(): number {
    return this.consumers.length;
  }

  // ---- consuming -----------------------------------------------------------------------------

  private async start(model: ChannelModel, state: ConsumerState): Promise<void> {
    const { queue, patterns } = state.subscription;
    const { logger } = this.options;
    const channel = await model.createConfirmChannel();
    channel.on('error', (err: Error) =>
      logger.warn({ queue, err: describeError(err) }, 'consumer channel error'),
    );
    try {
      await assertQueueTopology(channel, this.options.exchanges, queue, patterns, state.maxAttempts);
      await channel.prefetch(state.prefetch);
      const { consumerTag } = await channel.consume(
        queue,
        (message) => this.onMessage(state, channel, message),
        {
          noAck: false,
        },
      );
      state.channel = channel;
      state.consumerTag = consumerTag;
      channel.on('close', () => {
        if (state.channel === channel) this.connection.channelLost(model, queue);
      });
    } catch (err) {
      await channel.close().catch(() => undefined);
      throw err;
    }
  }

  private onMessage(state: ConsumerState, channel: ConfirmChannel, message: ConsumeMessage | null): void {
    const { logger } = this.options;
    if (message === null) {
      // The broker cancelled the consumer (its queue was deleted): re-declare from scratch.
      logger.warn({ queue: state.subscription.queue }, 'consumer cancelled by the broker');
      if (state.channel === channel) this.connection.currentChannelLost('cancelled');
      return;
    }
    // Closing: leave it unacked, the broker hands it to another consumer when the channel closes.
    if (this.connection.isClosing()) return;
    const task = this.handle(state, channel, message).catch((err: unknown) => {
      logger.error({ queue: state.subscription.queue, err: describeError(err) }, 'delivery handling failed');
    });
    this.inFlight.add(task);
    void task.finally(() => this.inFlight.delete(task));
  }

  private async handle(
    state: ConsumerState,
    channel: ConfirmChannel,
    message: ConsumeMessage,
  ): Promise<void> {
    const { queue, handler } = state.subscription;
    const { logger } = this.options;
    const closing = this.connection.closingSignal;
    const headers = message.properties.headers ?? {};
    // Failed attempts so far: those of earlier copies plus the broker's count of returns of this one.
    const failuresBefore = (headerNumber(headers[HEADER_PRIOR_FAILURES]) ?? 0) + deliveryCount(message);
    let attempt = (headerNumber(headers[HEADER_PRIOR_DELIVERIES]) ?? 0) + deliveryCount(message) + 1;
    let envelope: EventEnvelope;
    try {
      envelope = eventEnvelopeSchema.parse(JSON.parse(message.content.toString('utf8'))) as EventEnvelope;
    } catch (err) {
      await this.deadLetter(channel, queue, message, failuresBefore + 1, `poison: ${describeError(err)}`);
      return;
    }
    const counters = this.counters.of(queue);
    const holdUntil = performance.now() + (this.options.transientHoldMs ?? DEFAULT_TRANSIENT_HOLD_MS);
    for (;;) {
      try {
        const delivery = { attempt, redelivered: message.fields.redelivered || attempt > 1 };
        await consumeInTrace(queue, envelope, headers, attempt, () => handler(envelope, delivery));
      } catch (err) {
        const reason = describeError(err);
        if (isTransientFailure(err)) {
          // A dependency is down: not the message's fault. Hold it and try again at a capped pace.
          state.outageStreak += 1;
          counters.transientRetries += 1;
          const log = state.outageStreak === 1 ? logger.warn : logger.debug;
          log.call(
            logger,
            { queue, eventId: envelope.id, attempt, reason },
            'handler failed transiently, will retry without counting the attempt',
          );
          const delay = retryDelayMs(state.outageStreak, {
            ...TRANSIENT_RETRY_BACKOFF,
            ...this.options.transientBackoff,
          });
          await abortableSleep(delay, closing);
          if (this.connection.isClosing() || performance.now() >= holdUntil) {
            await this.moveToBack(channel, queue, message, attempt, failuresBefore);
            return;
          }
          attempt += 1;
          continue;
        }
        const failures = failuresBefore + 1;
        if (failures >= state.maxAttempts) {
          await this.deadLetter(channel, queue, message, failures, reason);
          return;
        }
        counters.failedRetries += 1;
        logger.warn({ queue, eventId: envelope.id, attempt, failures, reason }, 'handler failed, will retry');
        await abortableSleep(retryDelayMs(failures, this.options.retryBackoff), closing);
        await this.moveToBack(channel, queue, message, attempt, failures);
        return;
      }
      if (state.outageStreak > 0) {
        logger.info({ queue }, 'handler succeeded again after transient failures');
        state.outageStreak = 0;
      }
      settle(() => channel.ack(message));
      return;
    }
  }

  /** Copies the message into the dead-letter queue with its reason, then acks the original. */
  private async deadLetter(
    channel: ConfirmChannel,
    queue: string,
    message: ConsumeMessage,
    attempts: number,
    reason: string,
  ): Promise<void> {
    await this.deadLetters.copy(channel, queue, message, attempts, reason);
    this.counters.of(queue).deadLettered += 1;
    // Only now: if the copy was not confirmed the original stays unacked and comes back.
    settle(() => channel.ack(message));
  }

  /**
   * Publishes a fresh copy of a message to be retried to the back of its queue, carrying its
   * counts (deliveries so far, failures that count), then acks the original: the broker's own
   * delivery count, and so `x-delivery-limit`, only ever sees consumers that died mid-handler. If
   * the copy is not confirmed the original stays unacked and comes back by itself.
   */
  private async moveToBack(
    channel: ConfirmChannel,
    queue: string,
    message: ConsumeMessage,
    deliveries: number,
    failures: number,
  ): Promise<void> {
    const headers = withoutBrokerHeaders(message.properties.headers);
    headers[HEADER_PRIOR_DELIVERIES] = deliveries;
    headers[HEADER_PRIOR_FAILURES] = failures;
    headers[HEADER_ROUTING_KEY] ??= message.fields.routingKey;
    try {
      await publishConfirmed(channel, '', queue, message.content, copyProperties(message, headers));
    } catch (err) {
      this.options.logger.warn({ queue, err: describeError(err) }, 'could not requeue a held message');
      return;
    }
    settle(() => channel.ack(message));
  }
}
