import type { Clock } from '@svc/clock';
import type { EventEnvelope } from '@svc/contracts/common';
import type { Logger } from '@svc/logger';
import type { ConsumerStats, DeadLetter, DeadLetterSummary, MessageBus, Subscription } from './message-bus';
import { describeError, type RetryBackoff } from './retry-backoff';
import { MemoryDeadLetterStore, type DeadLetterStore } from './dead-letter-store';
import { deadLetterSummary, publicDeadLetter } from './in-process-dead-letters';
import { InProcessDelivery, type QueueState } from './in-process-delivery';
import { messageTraceHeaders } from './trace-context';
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
  private readonly delivery: InProcessDelivery;
  private closed = false;
  private opened: boolean;
  private readonly store: DeadLetterStore;
  private readonly opening: { promise: Promise<void>; resolve(): void; reject(err: Error): void };

  constructor(private readonly options: InProcessMessageBusOptions = {}) {
    this.opened = options.heldUntilOpen !== true;
    this.store = options.deadLetterStore ?? new MemoryDeadLetterStore();
    this.delivery = new InProcessDelivery(options, this.store);
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
    for (const queue of targets) this.delivery.dispatch(queue);
    if (this.delivery.handlerContext.getStore() !== undefined) {
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
    this.delivery.dispatch(queue);
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
    this.delivery.close();
    this.opening.reject(new Error('The in-process message bus closed before it opened'));
    while (this.delivery.inFlight.size > 0) await Promise.allSettled([...this.delivery.inFlight]);
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
    return (await this.store.list(queue, limit)).map((letter) => deadLetterSummary(queue, letter));
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
      this.delivery.dispatch(state);
    }
    return letters.length;
  }

  consumerStats(queue: string): ConsumerStats {
    return this.delivery.counters.snapshot(queue);
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
}
