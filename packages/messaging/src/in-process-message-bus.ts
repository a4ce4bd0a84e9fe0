import { AsyncLocalStorage } from 'node:async_hooks';
import { eventEnvelopeSchema, type EventEnvelope } from '@svc/contracts';
import type { Logger } from '@svc/logger';
import type { DeadLetter, MessageBus, MessageHandler, Subscription } from './message-bus';
import { abortableSleep, describeError, retryDelayMs, type RetryBackoff } from './retry-backoff';
import { topicMatches } from './topic-matcher';

export interface InProcessMessageBusOptions {
  logger?: Logger;
  /** Delay before a failed message is redelivered (default 100 ms doubling up to 2 s). */
  retryBackoff?: RetryBackoff;
}

/** A queue declared without a consumer: it binds and keeps messages until one subscribes. */
export interface QueueDeclaration {
  queue: string;
  patterns: string[];
  maxAttempts?: number;
}

interface PendingMessage {
  /** The envelope as published, serialised: every delivery parses its own copy, as off the wire. */
  body: string;
  deliveries: number;
  resolve(): void;
  reject(err: Error): void;
}

interface Consumer {
  handler: MessageHandler;
  prefetch: number;
  inFlight: number;
}

interface QueueState {
  name: string;
  patterns: Set<string>;
  maxAttempts: number;
  consumers: Consumer[];
  /** Round-robin cursor over the consumers, as RabbitMQ spreads a queue over competing consumers. */
  nextConsumer: number;
  ready: PendingMessage[];
  deadLetters: DeadLetter[];
}

const DEFAULT_MAX_ATTEMPTS = 5;
const DEFAULT_PREFETCH = 16;

/**
 * The broker of the embedded mode, with RabbitMQ's delivery semantics in one process: topic
 * routing, one queue per subscription name (competing consumers on the same name), at-least-once
 * delivery, bounded redelivery then a dead-letter list, per-consumer prefetch.
 *
 * Differences that matter:
 * - `publish` resolves only once every queue the message was routed to has settled it (acked or
 *   dead-lettered), so an outbox row is marked sent only when its event is truly handled: a crash
 *   loses nothing because the relay publishes the row again on the next start.
 * - A `publish` made from inside a handler resolves as soon as the message is queued: waiting
 *   would hold the handler's own slot, which the new message may need (a deadlock).
 * - Queues exist from their first `subscribe` (or `declareQueue`); a message that matches no
 *   declared queue is dropped, exactly like an unroutable message in RabbitMQ. Subscribe every
 *   consumer before starting the outbox relays.
 * - Nothing survives the process: durability comes from the outbox, not from this bus.
 */
export class InProcessMessageBus implements MessageBus {
  private readonly queues = new Map<string, QueueState>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly handlerContext = new AsyncLocalStorage<string>();
  private readonly closing = new AbortController();
  private closed = false;

  constructor(private readonly options: InProcessMessageBusOptions = {}) {}

  async publish(envelope: EventEnvelope): Promise<void> {
    if (this.closed) throw new Error('The in-process message bus is closed');
    const body = JSON.stringify(envelope);
    const targets = [...this.queues.values()].filter((queue) =>
      [...queue.patterns].some((pattern) => topicMatches(pattern, envelope.type)),
    );
    if (targets.length === 0) {
      this.options.logger?.debug({ type: envelope.type, eventId: envelope.id }, 'unroutable message dropped');
      return;
    }
    const settled = targets.map(
      (queue) =>
        new Promise<void>((resolve, reject) => {
          queue.ready.push({ body, deliveries: 0, resolve, reject });
        }),
    );
    for (const queue of targets) this.dispatch(queue);
    if (this.handlerContext.getStore() !== undefined) {
      // Published from a handler: queued is as safe as the handler's own message (see above).
      for (const promise of settled) promise.catch(() => undefined);
      return;
    }
    await Promise.all(settled);
  }

  async subscribe(subscription: Subscription): Promise<void> {
    if (this.closed) throw new Error('The in-process message bus is closed');
    const prefetch = subscription.prefetch ?? DEFAULT_PREFETCH;
    if (!Number.isInteger(prefetch) || prefetch < 1)
      throw new RangeError('prefetch must be a positive integer');
    const queue = this.declare(subscription);
    queue.consumers.push({ handler: subscription.handler, prefetch, inFlight: 0 });
    this.dispatch(queue);
  }

  /** Declares a queue and its bindings with no consumer yet: messages routed to it wait there. */
  async declareQueue(declaration: QueueDeclaration): Promise<void> {
    if (this.closed) throw new Error('The in-process message bus is closed');
    this.declare(declaration);
  }

  isReady(): boolean {
    return !this.closed;
  }

  /**
   * Stops delivering, waits for the handlers in flight, then fails the publishes still waiting
   * for messages nobody handled (their outbox rows stay unsent and are published again later).
   */
  async close(): Promise<void> {
    this.closed = true;
    this.closing.abort();
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    for (const queue of this.queues.values()) {
      for (const message of queue.ready.splice(0)) {
        message.reject(new Error('The in-process message bus closed before the message was handled'));
      }
    }
  }

  /** The messages dead-lettered from `queue` so far (a copy; they stay in the list). */
  deadLetters(queue: string): DeadLetter[] {
    return [...(this.queues.get(queue)?.deadLetters ?? [])];
  }

  /** Takes up to `max` dead letters of `queue` out of its list, oldest first. */
  async readDeadLetters(queue: string, max = 100): Promise<DeadLetter[]> {
    return this.queues.get(queue)?.deadLetters.splice(0, max) ?? [];
  }

  private declare(declaration: QueueDeclaration): QueueState {
    const maxAttempts = declaration.maxAttempts ?? DEFAULT_MAX_ATTEMPTS;
    if (!Number.isInteger(maxAttempts) || maxAttempts < 1)
      throw new RangeError('maxAttempts must be a positive integer');
    let queue = this.queues.get(declaration.queue);
    if (queue === undefined) {
      queue = {
        name: declaration.queue,
        patterns: new Set(),
        maxAttempts,
        consumers: [],
        nextConsumer: 0,
        ready: [],
        deadLetters: [],
      };
      this.queues.set(declaration.queue, queue);
    } else if (declaration.maxAttempts !== undefined && queue.maxAttempts !== maxAttempts) {
      // RabbitMQ refuses to redeclare a queue with other arguments (PRECONDITION_FAILED).
      throw new Error(
        `Queue ${declaration.queue} is declared with maxAttempts ${queue.maxAttempts}, not ${maxAttempts}`,
      );
    }
    for (const pattern of declaration.patterns) queue.patterns.add(pattern);
    return queue;
  }

  private dispatch(queue: QueueState): void {
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
      this.deadLetter(queue, message, raw, attempt, `poison: ${describeError(parsed.error)}`);
      return;
    }
    try {
      await this.handlerContext.run(queue.name, () =>
        consumer.handler(parsed.data as EventEnvelope, { attempt, redelivered: attempt > 1 }),
      );
      message.resolve();
    } catch (err) {
      const reason = describeError(err);
      if (attempt >= queue.maxAttempts) {
        this.deadLetter(queue, message, raw, attempt, reason);
        return;
      }
      this.options.logger?.warn(
        { queue: queue.name, eventId: parsed.data.id, attempt, reason },
        'handler failed',
      );
      await abortableSleep(retryDelayMs(attempt, this.options.retryBackoff), this.closing.signal);
      if (this.closed) {
        message.reject(new Error('The in-process message bus closed before the message was handled'));
        return;
      }
      // Back at the head, as RabbitMQ requeues a rejected message near its original position.
      queue.ready.unshift(message);
    }
  }

  private deadLetter(
    queue: QueueState,
    message: PendingMessage,
    raw: unknown,
    attempts: number,
    reason: string,
  ): void {
    queue.deadLetters.push({ queue: queue.name, envelope: raw as EventEnvelope, attempts, reason });
    this.options.logger?.error({ queue: queue.name, attempts, reason }, 'message dead-lettered');
    message.resolve();
  }
}
