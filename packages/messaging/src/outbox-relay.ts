import { register as defaultRegistry, type Registry } from 'prom-client';
import { systemClock, type Clock } from '@svc/clock';
import type { Logger } from '@svc/logger';
import type { Database, Queryable } from '@svc/storage';
import type { MessageBus } from './message-bus';
import {
  ClaimCursor,
  claimAndMark,
  markSent,
  recordFailure,
  releaseClaimed,
  selectUnsent,
  unsentBacklog,
  unsentCount,
} from './outbox-claims';
import { outboxMetrics, type OutboxMetrics } from './outbox-metrics';
import { OutboxPublisher, type OutboxRelayHooks } from './outbox-publisher';
import { isOpenBreaker, OutboxRelayBreaker, type OutboxRelayBreakerOptions } from './outbox-relay-breaker';
import { describeError } from './retry-backoff';

export type { OutboxRelayBreakerOptions } from './outbox-relay-breaker';
export type { OutboxRelayHooks } from './outbox-publisher';

export interface OutboxRelayOptions {
  db: Database;
  bus: MessageBus;
  logger: Logger;
  clock?: Clock;
  /** The `relay` label of the metrics, e.g. the service name (default `outbox`). */
  name?: string;
  /** Rows per pass (default 500): on a bus with `publishBatch`, also the events whose confirms are awaited together. */
  batchSize?: number;
  /** Delay between passes when idle (default 250 ms); `kick()` cuts it short. */
  pollIntervalMs?: number;
  /** Where the metrics go (default prom-client's global registry). */
  registry?: Registry;
  breaker?: OutboxRelayBreakerOptions;
  hooks?: OutboxRelayHooks;
}

/** What waits in the outbox: see `OutboxRelay.backlog`. */
export interface OutboxBacklog {
  count: number;
  oldestUnsentSeconds: number | null;
}

/** A pass under way in the background loop. */
interface InFlightPass {
  outcome: Promise<PassOutcome>;
  /** It read a whole batch: the next pass may start reading. */
  readFull: boolean;
}

interface PassOutcome {
  published: number;
  /** A whole batch went out: more rows are probably waiting. */
  full: boolean;
}

// A PGlite database is one connection in this process: relays on it take turns (see `pass`).
const pgliteTurns = new WeakMap<Database, Promise<unknown>>();

/** The backlog gauge is refreshed at most this often while the relay is busy (a count is not free). */
const REFRESH_MS = 1000;

/**
 * Publishes the outbox: rows committed by `appendToOutbox` go to the bus in id order, each with
 * a confirm, and are marked sent only afterwards, so a crash can repeat an event but never lose
 * one. On a bus with `publishBatch` (RabbitMQ) a pass publishes its rows back to back and awaits
 * their confirms together (ADR 0022). A failed publish records the error on its row and ends the
 * pass (later rows wait, keeping order); a circuit breaker keeps a dead broker from being hammered.
 *
 * On PostgreSQL a pass is one transaction of one statement: it claims its rows and marks them
 * sent at once (`FOR UPDATE SKIP LOCKED`), publishes, gives back any row not confirmed, and
 * commits; the mark is seen by no one before the commit, and a crash rolls it back (ADR 0037).
 * While batches follow one another, each claim starts after the previous one's last row instead of
 * walking the index entries of the rows already sent, and looks back now and then for a row that
 * committed late with a lower id (`ClaimCursor`).
 *
 * A relay cut off from its broker must not hold rows that another replica could publish: a pass
 * claims rows only when the broker answered within the last second (a confirm, or a `probe` of the
 * bus asked first), it waits for confirms at most `breaker.timeoutMs` before releasing its rows,
 * and its breaker opens after `consecutiveFailures` failures in a row however slowly they come.
 */
export class OutboxRelay {
  private readonly clock: Clock;
  private readonly name: string;
  private readonly batchSize: number;
  private readonly pollIntervalMs: number;
  private readonly metrics: OutboxMetrics;
  private readonly breaker: OutboxRelayBreaker;
  private readonly publisher: OutboxPublisher;
  private backlogAt = Number.NEGATIVE_INFINITY;
  private readonly cursor = new ClaimCursor();
  private running = false;
  private kicked = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  private turn: Promise<unknown> = Promise.resolve();

  constructor(private readonly options: OutboxRelayOptions) {
    this.clock = options.clock ?? systemClock;
    this.name = options.name ?? 'outbox';
    this.batchSize = options.batchSize ?? 500;
    this.pollIntervalMs = options.pollIntervalMs ?? 250;
    this.metrics = outboxMetrics(options.registry ?? defaultRegistry);
    this.breaker = new OutboxRelayBreaker(
      this.name,
      options.bus,
      options.logger,
      this.metrics,
      options.breaker,
    );
    this.publisher = new OutboxPublisher(
      this.name,
      options.bus,
      this.breaker,
      this.metrics,
      options.logger,
      options.hooks,
    );
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
    // On PostgreSQL, while a full batch awaits its confirms the next pass already reads (FOR
    // UPDATE SKIP LOCKED gives it the following rows): at most two passes in flight, the second
    // publishing after the first has put its rows on the channel, so the wire keeps id order.
    const overlap = this.options.db.kind === 'postgres';
    let current: InFlightPass | undefined;
    let ahead: InFlightPass | undefined;
    const readFull = (p: InFlightPass): void => {
      if (overlap && this.running && p === current && ahead === undefined) ahead = this.startPass(readFull);
    };
    while (this.running) {
      this.kicked = false;
      let more = false;
      try {
        current = ahead ?? this.startPass(readFull);
        ahead = undefined;
        if (current.readFull) readFull(current);
        more = (await current.outcome).full;
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
    await ahead?.outcome.catch(() => undefined);
  }

  /** Starts a pass; `onReadFull` is called once it has read a whole batch (more rows likely wait). */
  private startPass(onReadFull: (p: InFlightPass) => void): InFlightPass {
    const p: InFlightPass = { outcome: Promise.resolve({ published: 0, full: false }), readFull: false };
    const onRead = (): void => {
      p.readFull = true;
      onReadFull(p);
    };
    p.outcome = this.options.db.kind === 'postgres' ? this.passNow(onRead) : this.pass(onRead);
    return p;
  }

  /** One pass, never overlapping another of this relay (nor, on PGlite, of another relay). */
  private pass(onReadFull?: () => void): Promise<PassOutcome> {
    const { db } = this.options;
    const previous = db.kind === 'pglite' ? (pgliteTurns.get(db) ?? Promise.resolve()) : this.turn;
    const next = previous.catch(() => undefined).then(() => this.passNow(onReadFull));
    const settled = next.catch(() => undefined);
    if (db.kind === 'pglite') pgliteTurns.set(db, settled);
    else this.turn = settled;
    return next;
  }

  private async passNow(onReadFull?: () => void): Promise<PassOutcome> {
    const { db } = this.options;
    if (!(await this.breaker.brokerAnswers())) {
      await this.recordBacklog(0);
      return { published: 0, full: false };
    }
    const outcome =
      db.kind === 'postgres'
        ? await db.transaction((tx) => this.claimAndPublish(tx, onReadFull))
        : // PGlite is a single connection: a transaction held while publishing would block the
          // consumers' own transactions, which the in-process bus waits for (a deadlock).
          await this.readAndPublish(db, onReadFull);
    // Counting the backlog reads the unsent index: while batches follow one another, once a
    // second and only past the last claim (the entries of the rows just sent stay in the index
    // until vacuum); after a pass that was not full, all of it.
    if (!outcome.full) await this.recordBacklog(0);
    else if (performance.now() - this.backlogAt >= REFRESH_MS)
      await this.recordBacklog(this.cursor.claimedUpTo);
    return outcome;
  }

  /** PostgreSQL: claimed and marked in one statement; what is not confirmed is given back. */
  private async claimAndPublish(tx: Queryable, onReadFull?: () => void): Promise<PassOutcome> {
    const rows = await claimAndMark(tx, {
      now: this.clock.now(),
      after: this.cursor.next(),
      limit: this.batchSize,
    });
    const full = rows.length === this.batchSize;
    this.cursor.claimed(full ? (rows[rows.length - 1]?.id ?? 0) : 0);
    if (full) onReadFull?.();
    const { confirmed, failure } = await this.publisher.publish(rows);
    if (confirmed < rows.length) {
      this.cursor.claimed(0);
      const attempted = failure !== undefined && !isOpenBreaker(failure.err) ? failure : undefined;
      if (attempted !== undefined) this.publisher.countFailure(attempted.row, attempted.err);
      await releaseClaimed(tx, {
        ids: rows.slice(confirmed).map((row) => row.id),
        failed:
          attempted === undefined ? null : { id: attempted.row.id, reason: describeError(attempted.err) },
      });
    }
    return { published: confirmed, full: failure === undefined && full };
  }

  /** PGlite: read, publish, then mark what was confirmed. */
  private async readAndPublish(q: Queryable, onReadFull?: () => void): Promise<PassOutcome> {
    const rows = await selectUnsent(q, this.batchSize);
    if (rows.length === this.batchSize) onReadFull?.();
    const { confirmed, failure } = await this.publisher.publish(rows);
    if (confirmed > 0)
      await markSent(
        q,
        rows.slice(0, confirmed).map((row) => row.id),
        this.clock.now(),
      );
    if (failure !== undefined && !isOpenBreaker(failure.err)) {
      this.publisher.countFailure(failure.row, failure.err);
      await recordFailure(q, failure.row.id, describeError(failure.err));
    }
    return { published: confirmed, full: failure === undefined && rows.length === this.batchSize };
  }

  /**
   * The unsent rows: how many, and how long the oldest has waited (seconds by the database's own
   * clock, not a sandbox clock; null when none wait). The same count the backlog gauge shows.
   */
  async backlog(): Promise<OutboxBacklog> {
    const { count, oldest } = await unsentBacklog(this.options.db);
    return { count, oldestUnsentSeconds: count === 0 ? null : Math.max(0, oldest ?? 0) };
  }

  private async recordBacklog(after: number): Promise<void> {
    this.backlogAt = performance.now();
    this.metrics.backlog.set({ relay: this.name }, await unsentCount(this.options.db, after));
  }
}
