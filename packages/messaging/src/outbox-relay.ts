import CircuitBreaker from 'opossum';
import { register as defaultRegistry, type Registry } from 'prom-client';
import { systemClock, type Clock } from '@svc/clock';
import type { EventEnvelope } from '@svc/contracts';
import type { Logger } from '@svc/logger';
import type { Database, Queryable } from '@svc/storage';
import type { MessageBus } from './message-bus';
import { outboxMetrics, type OutboxMetrics } from './outbox-metrics';
import { describeError } from './retry-backoff';
import { publishInTrace } from './trace-context';

/** Test seams of the relay. */
export interface OutboxRelayHooks {
  /**
   * Runs after each confirmed publish, before the row is marked sent. Throwing here stands for a
   * crash at the worst moment: the pass is abandoned and nothing it published is marked.
   */
  afterPublish?: (envelope: EventEnvelope) => void | Promise<void>;
}

export interface OutboxRelayBreakerOptions {
  /** Per publish (default none: the bus bounds its own publishes, and in process a publish waits for handlers). */
  timeoutMs?: number | false;
  /** Failure percentage that opens the breaker (default 50). */
  errorThresholdPercentage?: number;
  /** Time the breaker stays open before trying again (default 5000 ms). */
  resetTimeoutMs?: number;
  /** Publishes in the rolling window before the breaker may open (default 3). */
  volumeThreshold?: number;
}

export interface OutboxRelayOptions {
  db: Database;
  bus: MessageBus;
  logger: Logger;
  clock?: Clock;
  /** The `relay` label of the metrics, e.g. the service name (default `outbox`). */
  name?: string;
  /** Rows per pass (default 100). */
  batchSize?: number;
  /** Delay between passes when idle (default 250 ms); `kick()` cuts it short. */
  pollIntervalMs?: number;
  /** Where the metrics go (default prom-client's global registry). */
  registry?: Registry;
  breaker?: OutboxRelayBreakerOptions;
  hooks?: OutboxRelayHooks;
}

interface OutboxRow {
  id: number;
  payload: EventEnvelope;
  /** The trace the event was written in (tracing on), published with it. */
  trace_context: Record<string, string> | null;
}

interface PassOutcome {
  published: number;
  /** A whole batch went out: more rows are probably waiting. */
  full: boolean;
}

// A PGlite database is one connection in this process: relays on it take turns (see `pass`).
const pgliteTurns = new WeakMap<Database, Promise<unknown>>();

/**
 * Publishes the outbox: rows committed by `appendToOutbox` go to the bus in id order, each with
 * a confirm, and are marked sent only afterwards, so a crash can repeat an event but never lose
 * one. A failed publish records the error on its row and ends the pass (later rows wait, keeping
 * order); a circuit breaker keeps a dead broker from being hammered.
 */
export class OutboxRelay {
  private readonly clock: Clock;
  private readonly name: string;
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;
  private readonly metrics: OutboxMetrics;
  private readonly breaker: CircuitBreaker<[EventEnvelope], void>;
  private running = false;
  private kicked = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private turn: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: OutboxRelayOptions) {
    this.clock = options.clock ?? systemClock;
    this.name = options.name ?? 'outbox';
    this.batchSize = options.batchSize ?? 100;
    this.pollIntervalMs = options.pollIntervalMs ?? 250;
    this.metrics = outboxMetrics(options.registry ?? defaultRegistry);
    const breaker = options.breaker ?? {};
    this.breaker = new CircuitBreaker((envelope: EventEnvelope) => options.bus.publish(envelope), {
      name: `outbox-relay:${this.name}`,
      timeout: breaker.timeoutMs ?? false,
      errorThresholdPercentage: breaker.errorThresholdPercentage ?? 50,
      resetTimeout: breaker.resetTimeoutMs ?? 5000,
      volumeThreshold: breaker.volumeThreshold ?? 3,
    });
    this.breaker.on('open', () => {
      this.metrics.breakerOpen.set({ relay: this.name }, 1);
      options.logger.warn({ relay: this.name }, 'outbox publishing breaker open');
    });
    this.breaker.on('close', () => this.metrics.breakerOpen.set({ relay: this.name }, 0));
    this.metrics.breakerOpen.set({ relay: this.name }, 0);
  }

  /** Starts polling in the background. */
  start(): void {
    if (this.running) return;
    this.running = true;
    this.loop = this.run();
  }

  /** Stops polling and waits for the batch in flight. */
  async stop(): Promise<void> {
    this.running = false;
    this.wake?.();
    await this.loop;
    this.loop = undefined;
  }

  /** Asks for a pass soon, e.g. right after a commit that appended events (low latency). */
  kick(): void {
    this.kicked = true;
    this.wake?.();
  }

  /** Runs one pass now and returns how many rows it published (tests, tooling). */
  async publishPending(): Promise<number> {
    return (await this.pass()).published;
  }

  private async run(): Promise<void> {
    // The loop owns its async context: a kick() from inside a message handler only resolves the
    // sleep below, so the passes never run as if they were part of that handler.
    while (this.running) {
      this.kicked = false;
      let more = false;
      try {
        more = (await this.pass()).full;
      } catch (err) {
        this.options.logger.error({ relay: this.name, err: describeError(err) }, 'outbox pass failed');
      }
      if (!this.running) break;
      if (more || this.kicked) continue;
      await new Promise<void>((resolve) => {
        const done = (): void => {
          clearTimeout(timer);
          this.wake = undefined;
          resolve();
        };
        const timer = setTimeout(done, this.pollIntervalMs);
        this.wake = done;
      });
    }
  }

  /** One pass, never overlapping another of this relay (nor, on PGlite, of another relay). */
  private pass(): Promise<PassOutcome> {
    const { db } = this.options;
    const previous = db.kind === 'pglite' ? (pgliteTurns.get(db) ?? Promise.resolve()) : this.turn;
    const next = previous.catch(() => undefined).then(() => this.passNow());
    const settled = next.catch(() => undefined);
    if (db.kind === 'pglite') pgliteTurns.set(db, settled);
    else this.turn = settled;
    return next;
  }

  private async passNow(): Promise<PassOutcome> {
    const { db } = this.options;
    const outcome =
      db.kind === 'postgres'
        ? // The row locks (FOR UPDATE SKIP LOCKED) last until the rows are marked: another relay
          // on the same database skips them instead of publishing them a second time.
          await db.transaction((tx) => this.publishBatch(tx, true))
        : // PGlite is a single connection: a transaction held while publishing would block the
          // consumers' own transactions, which the in-process bus waits for (a deadlock).
          await this.publishBatch(db, false);
    await this.recordBacklog();
    return outcome;
  }

  private async publishBatch(q: Queryable, lock: boolean): Promise<PassOutcome> {
    const { rows } = await q.query<OutboxRow>(
      `SELECT id, payload, trace_context FROM outbox WHERE published_at IS NULL ORDER BY id LIMIT $1${lock ? ' FOR UPDATE SKIP LOCKED' : ''}`,
      [this.batchSize],
    );
    const sent: number[] = [];
    let failure: { row: OutboxRow; err: unknown } | undefined;
    for (const row of rows) {
      try {
        await publishInTrace(row.payload, row.trace_context, () => this.breaker.fire(row.payload));
      } catch (err) {
        failure = { row, err };
        break;
      }
      this.metrics.published.inc({ relay: this.name });
      await this.options.hooks?.afterPublish?.(row.payload);
      sent.push(row.id);
    }
    if (sent.length > 0) {
      await q.query('UPDATE outbox SET published_at = $2 WHERE id = ANY($1::bigint[])', [
        sent,
        this.clock.now().toISOString(),
      ]);
    }
    if (failure !== undefined) await this.recordFailure(q, failure.row, failure.err);
    return { published: sent.length, full: failure === undefined && rows.length === this.batchSize };
  }

  private async recordFailure(q: Queryable, row: OutboxRow, err: unknown): Promise<void> {
    if ((err as { code?: unknown }).code === 'EOPENBREAKER') return; // not an attempt: nothing was sent
    this.metrics.failures.inc({ relay: this.name });
    const reason = describeError(err);
    this.options.logger.warn(
      { relay: this.name, eventId: row.payload.id, err: reason },
      'outbox publish failed',
    );
    await q.query('UPDATE outbox SET attempts = attempts + 1, last_error = $2 WHERE id = $1', [
      row.id,
      reason,
    ]);
  }

  private async recordBacklog(): Promise<void> {
    const { rows } = await this.options.db.query<{ backlog: number }>(
      'SELECT count(*)::int AS backlog FROM outbox WHERE published_at IS NULL',
    );
    this.metrics.backlog.set({ relay: this.name }, rows[0]?.backlog ?? 0);
  }
}
