import {
  connect,
  type Channel,
  type ChannelModel,
  type ConfirmChannel,
  type ConsumeMessage,
  type Message,
} from 'amqplib';
import { systemClock, type Clock } from '@svc/clock';
import { eventEnvelopeSchema, type EventEnvelope } from '@svc/contracts/common';
import { isTransientFailure } from '@svc/errors';
import type { Logger } from '@svc/logger';
import {
  BatchPublishError,
  type ConsumerStats,
  type DeadLetter,
  type DeadLetterSummary,
  type MessageBus,
  type Subscription,
} from './message-bus';
import {
  abortableSleep,
  ConsumerCounters,
  describeError,
  retryDelayMs,
  TRANSIENT_RETRY_BACKOFF,
  type RetryBackoff,
} from './retry-backoff';
import { consumeInTrace, messageTraceHeaders, publishInTrace } from './trace-context';

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

/** A message read from a dead-letter queue; `envelope` is missing when the body was not one. */
export interface AmqpDeadLetter extends Omit<DeadLetter, 'envelope'> {
  envelope: EventEnvelope | undefined;
  /** The body as it was received (poison may not even be JSON). */
  body: string;
  routingKey: string;
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

interface Connected {
  model: ChannelModel;
  publisher: ConfirmChannel;
}

const DEFAULT_MAX_ATTEMPTS = 5;
const DEFAULT_PREFETCH = 16;
const DEFAULT_TRANSIENT_HOLD_MS = 60_000;
const HEADER_REASON = 'x-svc-reason';
const HEADER_ATTEMPTS = 'x-svc-attempts';
const HEADER_DEAD_AT = 'x-svc-dead-lettered-at';
const HEADER_ROUTING_KEY = 'x-svc-routing-key';
// A message moved to the back of its queue carries what its earlier copies went through.
const HEADER_PRIOR_DELIVERIES = 'x-svc-prior-deliveries';
const HEADER_PRIOR_FAILURES = 'x-svc-prior-failures';
const HEADER_REPLAYS = 'x-svc-replays';
// Headers the broker sets on a delivery or a dead letter; a copy we publish starts without them.
const BROKER_HEADERS = [
  'x-delivery-count',
  'x-death',
  'x-first-death-reason',
  'x-first-death-queue',
  'x-first-death-exchange',
  'x-last-death-reason',
  'x-last-death-queue',
  'x-last-death-exchange',
];

class PublishRefusedError extends Error {
  override readonly name = 'PublishRefusedError';
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
 */
export class AmqpMessageBus implements MessageBus {
  private readonly exchange: string;
  private readonly deadLetterExchange: string;
  private readonly publishTimeoutMs: number;
  private readonly consumers: ConsumerState[] = [];
  private readonly inFlight = new Set<Promise<void>>();
  private readonly closing = new AbortController();
  private readonly counters = new ConsumerCounters();
  private readonly clock: Clock;
  private connected: Connected | undefined;
  private connecting: Promise<void> | undefined;
  private waiters: Array<() => void> = [];
  private closed: Promise<void> | undefined;
  /** The probe's round trip under way on a publisher channel (see `probe`). */
  private probing: { channel: ConfirmChannel; answer: Promise<void> } | undefined;

  constructor(private readonly options: AmqpMessageBusOptions) {
    this.exchange = options.exchange ?? 'svc.events';
    this.deadLetterExchange = `${this.exchange}.dlx`;
    this.publishTimeoutMs = options.publishTimeoutMs ?? 10_000;
    this.clock = options.clock ?? systemClock;
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
    await this.waitForConnection(performance.now() + this.publishTimeoutMs);
  }

  isReady(): boolean {
    return this.connected !== undefined && this.closed === undefined;
  }

  /**
   * Resolves once RabbitMQ answers a check of the exchange on the publisher channel within
   * `timeoutMs` (a connection first, if there is none), rejects otherwise. A connection that hangs
   * looks connected until the heartbeat gives up (~20 s); a probe finds out in `timeoutMs`.
   */
  async probe(timeoutMs: number): Promise<void> {
    const deadline = performance.now() + timeoutMs;
    const { publisher } = await this.waitForConnection(deadline, timeoutMs);
    // amqplib runs a channel's RPCs one after another: a check still unanswered is waited for
    // again rather than another queued behind it.
    let probing = this.probing;
    if (probing?.channel !== publisher) {
      const started = {
        channel: publisher,
        answer: publisher.checkExchange(this.exchange).then(() => undefined),
      };
      const done = (): void => {
        if (this.probing === started) this.probing = undefined;
      };
      started.answer.then(done, done);
      this.probing = probing = started;
    }
    const { answer } = probing;
    let timer: NodeJS.Timeout | undefined;
    try {
      await Promise.race([
        answer,
        new Promise<never>((_, reject) => {
          timer = setTimeout(
            () => reject(new Error(`RabbitMQ did not answer within ${timeoutMs} ms`)),
            Math.max(0, deadline - performance.now()),
          );
        }),
      ]);
    } finally {
      clearTimeout(timer);
    }
  }

  async publish(envelope: EventEnvelope): Promise<void> {
    const body = Buffer.from(JSON.stringify(envelope));
    const deadline = performance.now() + this.publishTimeoutMs;
    for (;;) {
      const { publisher } = await this.waitForConnection(deadline);
      try {
        await this.confirmedPublish(publisher, envelope, body, deadline);
        return;
      } catch (err) {
        if (err instanceof PublishRefusedError || this.closed !== undefined || performance.now() >= deadline)
          throw err;
        // The channel went down before the confirm: the broker may or may not have the message.
        // Publishing again risks a duplicate, which consumers absorb; losing it is not allowed.
        this.options.logger.warn(
          { eventId: envelope.id, err: describeError(err) },
          'publish interrupted, retrying',
        );
      }
    }
  }

  /**
   * Publishes the events back to back on the publisher channel and awaits their confirms
   * together: one round trip per batch instead of one per event, in the same order on the wire.
   * A channel lost half-way is retried from the first unconfirmed event (duplicates possible,
   * losses not); a nack, or no confirm within `publishTimeoutMs`, stops the batch there.
   */
  async publishBatch(
    envelopes: EventEnvelope[],
    traceContexts?: Array<Record<string, string> | null>,
  ): Promise<void> {
    const bodies = envelopes.map((envelope) => Buffer.from(JSON.stringify(envelope)));
    const deadline = performance.now() + this.publishTimeoutMs;
    let confirmed = 0;
    while (confirmed < envelopes.length) {
      let outcomes: Array<PromiseSettledResult<void>>;
      try {
        const { publisher } = await this.waitForConnection(deadline);
        outcomes = await this.confirmedBatch(
          publisher,
          envelopes,
          bodies,
          confirmed,
          deadline,
          traceContexts,
        );
      } catch (err) {
        throw new BatchPublishError(confirmed, err);
      }
      const failed = outcomes.findIndex((outcome) => outcome.status === 'rejected');
      if (failed === -1) return;
      confirmed += failed;
      const err = (outcomes[failed] as PromiseRejectedResult).reason as unknown;
      if (err instanceof PublishRefusedError || this.closed !== undefined || performance.now() >= deadline)
        throw new BatchPublishError(confirmed, err);
      this.options.logger.warn(
        { eventId: envelopes[confirmed]?.id, err: describeError(err) },
        'batch publish interrupted, retrying from the first unconfirmed event',
      );
    }
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
    const deadline = performance.now() + this.publishTimeoutMs;
    for (;;) {
      const current = await this.waitForConnection(deadline);
      try {
        await this.startConsumer(current.model, state);
        this.consumers.push(state);
        return;
      } catch (err) {
        // A refusal on a healthy connection (e.g. the queue exists with other arguments) is final;
        // a connection lost half-way is retried on the next one.
        if (this.connected === current || this.closed !== undefined || performance.now() >= deadline)
          throw err;
      }
    }
  }

  /** Declares a consumer's queue, its bindings and dead-letter queue, without consuming. */
  async declareQueue(declaration: AmqpQueueDeclaration): Promise<void> {
    const { model } = await this.waitForConnection(performance.now() + this.publishTimeoutMs);
    const channel = await model.createChannel();
    channel.on('error', () => undefined);
    try {
      await this.assertQueueTopology(
        channel,
        declaration.queue,
        declaration.patterns,
        declaration.maxAttempts ?? DEFAULT_MAX_ATTEMPTS,
      );
    } finally {
      await channel.close().catch(() => undefined);
    }
  }

  /**
   * Takes up to `max` messages out of `${queue}.dlq` (for operators and tests). Each is removed
   * from the dead-letter queue once read.
   */
  async readDeadLetters(queue: string, max = 100): Promise<AmqpDeadLetter[]> {
    const { model } = await this.waitForConnection(performance.now() + this.publishTimeoutMs);
    const channel = await model.createChannel();
    channel.on('error', () => undefined);
    const letters: AmqpDeadLetter[] = [];
    try {
      let last: Message | undefined;
      while (letters.length < max) {
        const message = await channel.get(`${queue}.dlq`, { noAck: false });
        if (message === false) break;
        letters.push(this.toDeadLetter(queue, message));
        last = message;
      }
      if (last !== undefined) channel.ack(last, true);
    } finally {
      await channel.close().catch(() => undefined);
    }
    return letters;
  }

  async deadLetterCount(queue: string): Promise<number> {
    return this.withChannel(async (channel) => (await channel.checkQueue(`${queue}.dlq`)).messageCount);
  }

  /**
   * Reads without taking: the messages read are given back to the dead-letter queue before this
   * returns (basic.recover, answered once they are requeued), so a count right after sees them.
   * Closing the channel alone gives them back too, but a moment after its answer.
   */
  async listDeadLetters(queue: string, limit = 100): Promise<DeadLetterSummary[]> {
    return this.withChannel(async (channel) => {
      const letters: DeadLetterSummary[] = [];
      while (letters.length < limit) {
        const message = await channel.get(`${queue}.dlq`, { noAck: false });
        if (message === false) break;
        const letter = this.toDeadLetter(queue, message);
        const deadAt = message.properties.headers?.[HEADER_DEAD_AT];
        letters.push({
          queue,
          eventId: letter.envelope?.id ?? null,
          type: letter.envelope?.type ?? null,
          attempts: letter.attempts,
          reason: letter.reason,
          deadLetteredAt: typeof deadAt === 'string' ? deadAt : null,
        });
      }
      await channel.recover();
      return letters;
    });
  }

  async replayDeadLetters(queue: string, limit = 100): Promise<number> {
    const { model } = await this.waitForConnection(performance.now() + this.publishTimeoutMs);
    const channel = await model.createConfirmChannel();
    channel.on('error', () => undefined);
    let replayed = 0;
    try {
      while (replayed < limit) {
        const message = await channel.get(`${queue}.dlq`, { noAck: false });
        if (message === false) break;
        const headers = withoutBrokerHeaders(message.properties.headers);
        for (const name of [HEADER_REASON, HEADER_ATTEMPTS, HEADER_DEAD_AT]) delete headers[name];
        delete headers[HEADER_PRIOR_DELIVERIES];
        delete headers[HEADER_PRIOR_FAILURES];
        headers[HEADER_REPLAYS] = (headerNumber(headers[HEADER_REPLAYS]) ?? 0) + 1;
        // Straight into the consumer's queue (default exchange): the other consumers of the event
        // handled it already and must not see it again.
        await publishConfirmed(channel, '', queue, message.content, {
          persistent: true,
          contentType: message.properties.contentType ?? 'application/json',
          messageId: message.properties.messageId,
          type: message.properties.type,
          headers,
        });
        // Only now: an unconfirmed copy leaves the dead letter where it was.
        channel.ack(message);
        replayed += 1;
      }
    } finally {
      await channel.close().catch(() => undefined);
    }
    if (replayed > 0) this.options.logger.info({ queue, replayed }, 'dead letters replayed');
    return replayed;
  }

  consumerStats(queue: string): ConsumerStats {
    return this.counters.snapshot(queue);
  }

  /** Stops consuming, waits for the handlers in flight, then closes the connection. */
  close(): Promise<void> {
    this.closed ??= this.shutdown();
    return this.closed;
  }

  private async shutdown(): Promise<void> {
    this.closing.abort();
    for (const consumer of this.consumers) {
      if (consumer.channel !== undefined && consumer.consumerTag !== undefined) {
        await consumer.channel.cancel(consumer.consumerTag).catch(() => undefined);
      }
    }
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    const current = this.connected;
    this.connected = undefined;
    await this.connecting?.catch(() => undefined);
    if (current !== undefined) await current.model.close().catch(() => undefined);
    this.wakeWaiters();
  }

  /** Runs `work` on a short-lived channel of the current connection (a failed check closes it). */
  private async withChannel<T>(work: (channel: Channel) => Promise<T>): Promise<T> {
    const { model } = await this.waitForConnection(performance.now() + this.publishTimeoutMs);
    const channel = await model.createChannel();
    channel.on('error', () => undefined);
    try {
      return await work(channel);
    } finally {
      await channel.close().catch(() => undefined);
    }
  }

  // ---- connection ----------------------------------------------------------------------------

  private async waitForConnection(deadline: number, waitMs = this.publishTimeoutMs): Promise<Connected> {
    for (;;) {
      if (this.closed !== undefined) throw new Error('The AMQP message bus is closed');
      if (this.connected !== undefined) return this.connected;
      this.connecting ??= this.reconnect().finally(() => {
        this.connecting = undefined;
      });
      const remaining = deadline - performance.now();
      if (remaining <= 0) throw new Error(`RabbitMQ unavailable for ${waitMs} ms`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(wake, remaining);
        const waiters = this.waiters;
        function wake(): void {
          clearTimeout(timer);
          resolve();
        }
        waiters.push(wake);
      });
    }
  }

  private wakeWaiters(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }

  /** Opens a connection, retrying with backoff until it works or the bus closes. */
  private async reconnect(): Promise<void> {
    for (let attempt = 1; this.closed === undefined; attempt += 1) {
      try {
        this.connected = await this.open();
        this.options.logger.info(
          { exchange: this.exchange, consumers: this.consumers.length },
          'connected to RabbitMQ',
        );
        this.wakeWaiters();
        return;
      } catch (err) {
        const delay = retryDelayMs(attempt, {
          initialMs: 100,
          maxMs: 5000,
          ...this.options.reconnectBackoff,
        });
        this.options.logger.warn(
          { err: describeError(err), attempt, delay },
          'RabbitMQ connection failed, retrying',
        );
        await abortableSleep(delay, this.closing.signal);
      }
    }
  }

  private async open(): Promise<Connected> {
    // noDelay: without it Nagle's algorithm holds small frames and a confirmed publish takes
    // ~44 ms instead of ~0.6 ms (measured on this stack).
    const model = await connect(this.connectionUrl(), {
      noDelay: true,
      timeout: 10_000,
      clientProperties: { connection_name: this.options.connectionName ?? 'svc-messaging' },
    });
    model.on('error', (err: Error) =>
      this.options.logger.warn({ err: describeError(err) }, 'RabbitMQ connection error'),
    );
    model.on('close', () => this.onConnectionLost(model));
    try {
      const publisher = await model.createConfirmChannel();
      publisher.on('error', (err: Error) =>
        this.options.logger.warn({ err: describeError(err) }, 'publish channel error'),
      );
      await publisher.assertExchange(this.exchange, 'topic', { durable: true });
      await publisher.assertExchange(this.deadLetterExchange, 'direct', { durable: true });
      for (const consumer of this.consumers) await this.startConsumer(model, consumer);
      // Registered last: a channel that fails during set-up must not tear the connection down.
      publisher.on('close', () => this.onChannelLost(model, 'publisher'));
      if (this.closed !== undefined) throw new Error('The AMQP message bus is closed');
      return { model, publisher };
    } catch (err) {
      await model.close().catch(() => undefined);
      throw err;
    }
  }

  private connectionUrl(): string {
    const url = new URL(this.options.url);
    if (!url.searchParams.has('heartbeat'))
      url.searchParams.set('heartbeat', String(this.options.heartbeatSeconds ?? 10));
    return url.toString();
  }

  private onConnectionLost(model: ChannelModel): void {
    if (this.connected?.model !== model) return;
    this.connected = undefined;
    for (const consumer of this.consumers) {
      consumer.channel = undefined;
      consumer.consumerTag = undefined;
    }
    if (this.closed !== undefined) return;
    this.options.logger.warn('RabbitMQ connection lost, reconnecting');
    this.connecting ??= this.reconnect().finally(() => {
      this.connecting = undefined;
    });
  }

  /** A channel closed under a live connection: start afresh, re-declaring everything. */
  private onChannelLost(model: ChannelModel, which: string): void {
    if (this.closed !== undefined || this.connected?.model !== model) return;
    this.options.logger.warn({ channel: which }, 'RabbitMQ channel closed, reopening the connection');
    void model.close().catch(() => undefined);
  }

  // ---- topology ------------------------------------------------------------------------------

  private async assertQueueTopology(
    channel: Channel,
    queue: string,
    patterns: string[],
    maxAttempts: number,
  ): Promise<void> {
    await channel.assertExchange(this.exchange, 'topic', { durable: true });
    await channel.assertExchange(this.deadLetterExchange, 'direct', { durable: true });
    await channel.assertQueue(`${queue}.dlq`, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
    await channel.bindQueue(`${queue}.dlq`, this.deadLetterExchange, queue);
    await channel.assertQueue(queue, {
      durable: true,
      arguments: {
        'x-queue-type': 'quorum',
        'x-dead-letter-exchange': this.deadLetterExchange,
        'x-dead-letter-routing-key': queue,
        // The broker dead-letters a message once it has been returned maxAttempts times: a
        // consumer that crashes mid-handler on every delivery cannot loop forever.
        'x-delivery-limit': maxAttempts - 1,
        // Broker-side dead-lettering that cannot lose a message (RabbitMQ 3.10+).
        'x-dead-letter-strategy': 'at-least-once',
        'x-overflow': 'reject-publish',
      },
    });
    for (const pattern of patterns) await channel.bindQueue(queue, this.exchange, pattern);
  }

  private async startConsumer(model: ChannelModel, state: ConsumerState): Promise<void> {
    const { queue, patterns } = state.subscription;
    const channel = await model.createConfirmChannel();
    channel.on('error', (err: Error) =>
      this.options.logger.warn({ queue, err: describeError(err) }, 'consumer channel error'),
    );
    try {
      await this.assertQueueTopology(channel, queue, patterns, state.maxAttempts);
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
        if (state.channel === channel) this.onChannelLost(model, queue);
      });
    } catch (err) {
      await channel.close().catch(() => undefined);
      throw err;
    }
  }

  // ---- publishing ----------------------------------------------------------------------------

  private confirmedPublish(
    channel: ConfirmChannel,
    envelope: EventEnvelope,
    body: Buffer,
    deadline: number,
  ): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`No publisher confirm within ${this.publishTimeoutMs} ms`)),
        Math.max(0, deadline - performance.now()),
      );
      // Tracing on: the publishing span's W3C context travels in the message headers.
      const trace = messageTraceHeaders();
      try {
        channel.publish(
          this.exchange,
          envelope.type,
          body,
          {
            persistent: true,
            contentType: 'application/json',
            messageId: envelope.id,
            type: envelope.type,
            ...(trace === undefined ? {} : { headers: trace }),
          },
          (err: unknown) => {
            clearTimeout(timer);
            if (err === null || err === undefined) resolve();
            else reject(confirmError(envelope, err));
          },
        );
      } catch (err) {
        // The channel closed under us: amqplib throws at once.
        clearTimeout(timer);
        reject(err instanceof Error ? err : new Error(String(err)));
      }
    });
  }

  /** Publishes `envelopes[from..]` and settles once each is confirmed, refused or timed out. */
  private confirmedBatch(
    channel: ConfirmChannel,
    envelopes: EventEnvelope[],
    bodies: Buffer[],
    from: number,
    deadline: number,
    traceContexts: Array<Record<string, string> | null> | undefined,
  ): Promise<Array<PromiseSettledResult<void>>> {
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<never>((_, reject) => {
      timer = setTimeout(
        () => reject(new Error(`No publisher confirm within ${this.publishTimeoutMs} ms`)),
        Math.max(0, deadline - performance.now()),
      );
    });
    const pending: Array<Promise<void>> = [];
    for (let i = from; i < envelopes.length; i += 1) {
      const envelope = envelopes[i] as EventEnvelope;
      // Each event in the trace it was written in (tracing on): a PRODUCER span until its confirm,
      // whose context travels in the headers. inSpan calls back at once, so the wire keeps order.
      const confirm = publishInTrace(
        envelope,
        traceContexts?.[i],
        () =>
          new Promise<void>((resolve, reject) => {
            const trace = messageTraceHeaders();
            try {
              channel.publish(
                this.exchange,
                envelope.type,
                bodies[i] as Buffer,
                {
                  persistent: true,
                  contentType: 'application/json',
                  messageId: envelope.id,
                  type: envelope.type,
                  ...(trace === undefined ? {} : { headers: trace }),
                },
                (err: unknown) => {
                  if (err === null || err === undefined) resolve();
                  else reject(confirmError(envelope, err));
                },
              );
            } catch (err) {
              // The channel closed under us: amqplib throws at once.
              reject(err instanceof Error ? err : new Error(String(err)));
            }
          }),
      );
      pending.push(Promise.race([confirm, timedOut]));
    }
    timedOut.catch(() => undefined);
    return Promise.allSettled(pending).finally(() => clearTimeout(timer));
  }

  // ---- consuming -----------------------------------------------------------------------------

  private onMessage(state: ConsumerState, channel: ConfirmChannel, message: ConsumeMessage | null): void {
    if (message === null) {
      // The broker cancelled the consumer (its queue was deleted): re-declare from scratch.
      this.options.logger.warn({ queue: state.subscription.queue }, 'consumer cancelled by the broker');
      if (state.channel === channel && this.connected !== undefined)
        this.onChannelLost(this.connected.model, 'cancelled');
      return;
    }
    // Closing: leave it unacked, the broker hands it to another consumer when the channel closes.
    if (this.closed !== undefined) return;
    const task = this.handle(state, channel, message).catch((err: unknown) => {
      this.options.logger.error(
        { queue: state.subscription.queue, err: describeError(err) },
        'delivery handling failed',
      );
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
          const log = state.outageStreak === 1 ? this.options.logger.warn : this.options.logger.debug;
          log.call(
            this.options.logger,
            { queue, eventId: envelope.id, attempt, reason },
            'handler failed transiently, will retry without counting the attempt',
          );
          const delay = retryDelayMs(state.outageStreak, {
            ...TRANSIENT_RETRY_BACKOFF,
            ...this.options.transientBackoff,
          });
          await abortableSleep(delay, this.closing.signal);
          if (this.closed !== undefined || performance.now() >= holdUntil) {
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
        this.options.logger.warn(
          { queue, eventId: envelope.id, attempt, failures, reason },
          'handler failed, will retry',
        );
        await abortableSleep(retryDelayMs(failures, this.options.retryBackoff), this.closing.signal);
        await this.moveToBack(channel, queue, message, attempt, failures);
        return;
      }
      if (state.outageStreak > 0) {
        this.options.logger.info({ queue }, 'handler succeeded again after transient failures');
        state.outageStreak = 0;
      }
      settle(() => channel.ack(message));
      return;
    }
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
      await publishConfirmed(channel, '', queue, message.content, {
        persistent: true,
        contentType: message.properties.contentType ?? 'application/json',
        messageId: message.properties.messageId,
        type: message.properties.type,
        headers,
      });
    } catch (err) {
      this.options.logger.warn({ queue, err: describeError(err) }, 'could not requeue a held message');
      return;
    }
    settle(() => channel.ack(message));
  }

  /** Copies the message into the dead-letter queue with its reason, then acks the original. */
  private async deadLetter(
    channel: ConfirmChannel,
    queue: string,
    message: ConsumeMessage,
    attempts: number,
    reason: string,
  ): Promise<void> {
    this.options.logger.error(
      { queue, messageId: message.properties.messageId, attempts, reason },
      'message dead-lettered',
    );
    await publishConfirmed(channel, this.deadLetterExchange, queue, message.content, {
      persistent: true,
      contentType: message.properties.contentType ?? 'application/json',
      messageId: message.properties.messageId,
      type: message.properties.type,
      headers: {
        ...withoutBrokerHeaders(message.properties.headers),
        [HEADER_REASON]: reason,
        [HEADER_ATTEMPTS]: attempts,
        [HEADER_DEAD_AT]: this.clock.now().toISOString(),
        [HEADER_ROUTING_KEY]: message.properties.headers?.[HEADER_ROUTING_KEY] ?? message.fields.routingKey,
      },
    });
    this.counters.of(queue).deadLettered += 1;
    // Only now: if the copy was not confirmed the original stays unacked and comes back.
    settle(() => channel.ack(message));
  }

  private toDeadLetter(queue: string, message: Message): AmqpDeadLetter {
    const headers = message.properties.headers ?? {};
    const body = message.content.toString('utf8');
    let envelope: EventEnvelope | undefined;
    try {
      const parsed = eventEnvelopeSchema.safeParse(JSON.parse(body));
      if (parsed.success) envelope = parsed.data as EventEnvelope;
    } catch {
      envelope = undefined;
    }
    const known = this.consumers.find((consumer) => consumer.subscription.queue === queue);
    const attempts = headerNumber(headers[HEADER_ATTEMPTS]) ?? known?.maxAttempts ?? 0;
    const reason =
      typeof headers[HEADER_REASON] === 'string'
        ? headers[HEADER_REASON]
        : String(headers['x-first-death-reason'] ?? 'unknown');
    const routingKey =
      typeof headers[HEADER_ROUTING_KEY] === 'string'
        ? headers[HEADER_ROUTING_KEY]
        : message.fields.routingKey;
    return { queue, envelope, body, attempts, reason, routingKey };
  }
}

/** What a publisher confirm callback's error means: a refusal (nack) is final, the rest may be retried. */
function confirmError(envelope: EventEnvelope, err: unknown): Error {
  if (err instanceof Error && err.message === 'message nacked')
    return new PublishRefusedError(`RabbitMQ refused event ${envelope.id} (nack)`);
  return err instanceof Error ? err : new Error(String(err));
}

/** Deliveries before this one, as the quorum queue counts them. */
function deliveryCount(message: Message): number {
  return headerNumber(message.properties.headers?.['x-delivery-count']) ?? 0;
}

function headerNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  return undefined;
}

/** The headers of `headers` without those the broker sets (a copy). */
function withoutBrokerHeaders(headers: Record<string, unknown> | undefined): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...headers };
  for (const name of BROKER_HEADERS) delete copy[name];
  return copy;
}

/** Publishes on a confirm channel and resolves once the broker confirmed it. */
function publishConfirmed(
  channel: ConfirmChannel,
  exchange: string,
  routingKey: string,
  content: Buffer,
  options: Parameters<ConfirmChannel['publish']>[3],
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    try {
      channel.publish(exchange, routingKey, content, options, (err: unknown) =>
        err === null || err === undefined ? resolve() : reject(new Error(String(err))),
      );
    } catch (err) {
      // The channel closed under us: amqplib throws at once.
      reject(err instanceof Error ? err : new Error(String(err)));
    }
  });
}

/** Acks or nacks; on a channel that has closed meanwhile the broker redelivers, which is safe. */
function settle(action: () => void): void {
  try {
    action();
  } catch {
    // IllegalOperationError: channel closed. The message returns to the queue by itself.
  }
}
