import { AsyncLocalStorage } from 'node:async_hooks';
import { systemClock, type Clock } from '@svc/clock';
import { eventEnvelopeSchema, type EventEnvelope } from '@svc/contracts/common';
import { isTransientFailure } from '@svc/errors';
import type { Logger } from '@svc/logger';
import type {
  ConsumerStats,
  DeadLetter,
  DeadLetterSummary,
  MessageBus,
  MessageHandler,
  Subscription,
} from './message-bus';
import {
  abortableSleep,
  ConsumerCounters,
  describeError,
  retryDelayMs,
  TRANSIENT_RETRY_BACKOFF,
  type RetryBackoff,
} from './retry-backoff';
import { MemoryDeadLetterStore, type DeadLetterStore, type KeptDeadLetter } from './dead-letter-store';
import { consumeInTrace, messageTraceHeaders } from './trace-context';
import { topicMatches } from './topic-matcher';

export interface InProcessMessageBusOptions {
  logger?: Logger;
  /** Delay before a failed message is redelivered (default 100 ms doubling up to 2 s). */
  retryBackoff?: RetryBackoff;
  /** Delay between retries while a dependency is unavailable (default 100 ms doubling up to 1 s). */
  transientBackoff?: RetryBackoff;
  /** Stamps dead letters (default the system clock). */
  clock?: Clock;
  /**
   * Holds every publish until `open()` (default false: open at once). A process starting several
   * services on one bus opens it once all of them have subscribed: nothing survives a restart in
   * this bus, so the events a relay publishes first (left unsent by a crash) would otherwise reach
   * only the queues of the services started before it, and be lost for the others.
   */
  heldUntilOpen?: boolean;
  /**
   * Where dead letters are kept (default: in memory, gone with the process). A
   * `DatabaseDeadLetterStore` keeps them across restarts, as RabbitMQ's dead-letter queues are.
   */
  deadLetterStore?: DeadLetterStore;
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
  /** Non-transient failures so far: these count toward `maxAttempts`. */
  failures: number;
  /** The publisher's trace context (tracing on), as AMQP headers would carry it. */
  trace?: Record<string, string>;
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
  /** Dead letters of this queue being replayed now: a second replay leaves them alone. */
  replaying: Set<number>;
  /** Consecutive transient failures of this queue's handlers: the pace of retries in an outage. */
  outageStreak: number;
}

const DEFAULT_MAX_ATTEMPTS = 5;
const DEFAULT_PREFETCH = 16;

/**
 * The broker of the embedded mode, with RabbitMQ's delivery semantics in one process: topic
 * routing, one queue per subscription name (competing consumers on the same name), at-least-once
 * delivery, retries without limit while a dependency is unavailable, bounded redelivery of other
 * failures then a dead-letter list that can be replayed, per-consumer prefetch.
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
 * - Messages do not survive the process: durability comes from the outbox, not from this bus. Where
 *   several services share the bus, `heldUntilOpen` keeps every publish waiting until all have
 *   subscribed (their outbox rows stay unsent meanwhile). Dead letters do, in a
 *   `DatabaseDeadLetterStore`: a message is settled (its outbox row marked sent) only once its
 *   dead letter is kept, and a replayed one leaves the store only once it is handled.
 */
export class InProcessMessageBus implements MessageBus {
  private readonly queues = new Map<string, QueueState>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly handlerContext = new AsyncLocalStorage<string>();
  private readonly closing = new AbortController();
  private readonly counters = new ConsumerCounters();
  private closed = false;
  private opened: boolean;
  private readonly store: DeadLetterStore;
  private readonly opening: { promise: Promise<void>; resolve(): void; reject(err: Error): void };

  constructor(private readonly options: InProcessMessageBusOptions = {}) {
    this.opened = options.heldUntilOpen !== true;
    this.store = options.deadLetterStore ?? new MemoryDeadLetterStore();
    let resolve!: () => void;
    let reject!: (err: Error) => void;
    const promise = new Promise<void>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    // A bus closed before it opened fails its held publishes; nobody else need handle that.
    promise.catch(() => undefined);
    this.opening = { promise, resolve, reject };
    if (this.opened) resolve();
  }

  /** Lets the publishes held since the start through (`heldUntilOpen`); idempotent. */
  open(): void {
    this.opened = true;
    this.opening.resolve();
  }

  async publish(envelope: EventEnvelope): Promise<void> {
    if (this.closed) throw new Error('The in-process message bus is closed');
    if (!this.opened) {
      await this.opening.promise;
      if (this.closed) throw new Error('The in-process message bus is closed');
    }
    const body = JSON.stringify(envelope);
    const targets = [...this.queues.values()].filter((queue) =>
      [...queue.patterns].some((pattern) => topicMatches(pattern, envelope.type)),
    );
    if (targets.length === 0) {
      this.options.logger?.debug({ type: envelope.type, eventId: envelope.id }, 'unroutable message dropped');
      return;
    }
    const trace = messageTraceHeaders();
    const settled = targets.map(
      (queue) =>
        new Promise<void>((resolve, reject) => {
          queue.ready.push({
            body,
            deliveries: 0,
            failures: 0,
            ...(trace === undefined ? {} : { trace }),
            resolve,
            reject,
          });
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
    this.opening.reject(new Error('The in-process message bus closed before it opened'));
    while (this.inFlight.size > 0) await Promise.allSettled([...this.inFlight]);
    for (const queue of this.queues.values()) {
      for (const message of queue.ready.splice(0)) {
        message.reject(new Error('The in-process message bus closed before the message was handled'));
      }
    }
  }

  /** The dead letters of `queue`, oldest first, left in place (up to `limit`, default 100). */
  async deadLetters(queue: string, limit = 100): Promise<DeadLetter[]> {
    return (await this.store.list(queue, limit)).map(publicDeadLetter);
  }

  /** Takes up to `max` dead letters of `queue` out of the store, oldest first. */
  async readDeadLetters(queue: string, max = 100): Promise<DeadLetter[]> {
    const letters = await this.store.list(queue, max);
    await this.store.remove(letters.map((letter) => letter.id));
    return letters.map(publicDeadLetter);
  }

  async deadLetterCount(queue: string): Promise<number> {
    return this.store.count(queue);
  }

  async listDeadLetters(queue: string, limit = 100): Promise<DeadLetterSummary[]> {
    return (await this.store.list(queue, limit)).map((letter) => {
      const envelope = publicDeadLetter(letter).envelope as Partial<EventEnvelope> | null;
      return {
        queue,
        eventId: typeof envelope?.id === 'string' ? envelope.id : null,
        type: typeof envelope?.type === 'string' ? envelope.type : null,
        attempts: letter.attempts,
        reason: letter.reason,
        deadLetteredAt: letter.deadLetteredAt,
      };
    });
  }

  /**
   * Hands up to `limit` dead letters of `queue` back to its consumers. Each leaves the store once it
   * is handled (or dead-lettered again, as a new letter): a crash in between leaves it a dead letter.
   */
  async replayDeadLetters(queue: string, limit = 100): Promise<number> {
    if (this.closed) throw new Error('The in-process message bus is closed');
    const state = this.queues.get(queue);
    if (state === undefined) return 0;
    const letters = (await this.store.list(queue, limit + state.replaying.size))
      .filter((letter) => !state.replaying.has(letter.id))
      .slice(0, limit);
    for (const letter of letters) {
      state.replaying.add(letter.id);
      const done = (): void => {
        state.replaying.delete(letter.id);
      };
      state.ready.push({
        body: letter.body,
        deliveries: 0,
        failures: 0,
        resolve: () => {
          this.store.remove([letter.id]).then(done, (err: unknown) => {
            done();
            this.options.logger?.warn(
              { queue, err: describeError(err) },
              'a replayed dead letter was handled but stays listed; a replay of it is a no-op',
            );
          });
        },
        reject: done,
      });
    }
    if (letters.length > 0) {
      this.options.logger?.info({ queue, replayed: letters.length }, 'dead letters replayed');
      this.dispatch(state);
    }
    return letters.length;
  }

  consumerStats(queue: string): ConsumerStats {
    return this.counters.snapshot(queue);
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
        replaying: new Set(),
        outageStreak: 0,
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

function publicDeadLetter(letter: KeptDeadLetter): DeadLetter {
  let envelope: unknown;
  try {
    envelope = JSON.parse(letter.body);
  } catch {
    envelope = letter.body;
  }
  return {
    queue: letter.queue,
    envelope: envelope as EventEnvelope,
    attempts: letter.attempts,
    reason: letter.reason,
  };
}
