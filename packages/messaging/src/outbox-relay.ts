import CircuitBreaker from 'opossum';
import { register as defaultRegistry, type Registry } from 'prom-client';
import { systemClock, type Clock } from '@svc/clock';
import type { EventEnvelope } from '@svc/contracts/common';
import type { Logger } from '@svc/logger';
import { kyselyOn, sql, type Database, type Queryable, type Selectable } from '@svc/storage';
import type { DB } from './db.generated';
import { BatchPublishError, type MessageBus } from './message-bus';
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
  /**
   * The longest a publish, or a batch on a bus with `publishBatch`, may wait for its confirms while
   * the relay holds its rows; then the rows are released and the attempt counts as failed. Default
   * 3000 ms on a bus with `probe` (a broker over the network), none otherwise (in process a publish
   * waits for handlers).
   */
  timeoutMs?: number | false;
  /** How long a bus with `probe` has to answer before a pass claims rows (default 1000 ms). */
  probeTimeoutMs?: number;
  /** Failure percentage that opens the breaker (default 50). */
  errorThresholdPercentage?: number;
  /** Time the breaker stays open before trying again (default 5000 ms). */
  resetTimeoutMs?: number;
  /** Publishes in the rolling window before the breaker may open (default 3). */
  volumeThreshold?: number;
  /** Failures in a row (publishes or probes), however far apart in time, that open the breaker (default 3). */
  consecutiveFailures?: number;
}

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

type OutboxRow = Pick<Selectable<DB['outbox']>, 'id' | 'payload' | 'traceContext'>;

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
const BACKLOG_REFRESH_MS = 1000;

/** A broker that answered this recently, with no failure since, is not probed before rows are claimed. */
const ANSWER_TRUSTED_MS = 1000;

/** The default bound on waiting for confirms while rows are held, on a bus over the network. */
const NETWORK_PUBLISH_TIMEOUT_MS = 3000;

/**
 * Publishes the outbox: rows committed by `appendToOutbox` go to the bus in id order, each with
 * a confirm, and are marked sent only afterwards, so a crash can repeat an event but never lose
 * one. On a bus with `publishBatch` (RabbitMQ) a pass publishes its rows back to back and awaits
 * their confirms together (ADR 0022). A failed publish records the error on its row and ends the
 * pass (later rows wait, keeping order); a circuit breaker keeps a dead broker from being hammered.
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
  private readonly breaker: CircuitBreaker<[() => Promise<void>], void>;
  private readonly probeTimeoutMs: number;
  /** When the broker last answered (performance.now()); -Infinity after a failure. */
  private answeredAt = Number.NEGATIVE_INFINITY;
  private failuresInARow = 0;
  private backlogAt = Number.NEGATIVE_INFINITY;
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
    const breaker = options.breaker ?? {};
    const overNetwork = options.bus.probe !== undefined;
    this.probeTimeoutMs = breaker.probeTimeoutMs ?? 1000;
    this.breaker = new CircuitBreaker((call: () => Promise<void>) => call(), {
      name: `outbox-relay:${this.name}`,
      timeout: breaker.timeoutMs ?? (overNetwork ? NETWORK_PUBLISH_TIMEOUT_MS : false),
      errorThresholdPercentage: breaker.errorThresholdPercentage ?? 50,
      resetTimeout: breaker.resetTimeoutMs ?? 5000,
      volumeThreshold: breaker.volumeThreshold ?? 3,
    });
    // opossum opens on a failure rate within its 10 s window: a broker that makes each attempt
    // wait seconds never fills the window. Failures in a row open it too, however far apart.
    const consecutiveFailures = breaker.consecutiveFailures ?? 3;
    this.breaker.on('success', () => {
      this.failuresInARow = 0;
      this.answeredAt = performance.now();
    });
    this.breaker.on('failure', () => {
      this.answeredAt = Number.NEGATIVE_INFINITY;
      this.failuresInARow += 1;
      if (this.failuresInARow >= consecutiveFailures) this.breaker.open();
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
    if (!(await this.brokerAnswers())) {
      await this.recordBacklog();
      return { published: 0, full: false };
    }
    const outcome =
      db.kind === 'postgres'
        ? // The row locks (FOR UPDATE SKIP LOCKED) last until the rows are marked: another relay
          // on the same database skips them instead of publishing them a second time.
          await db.transaction((tx) => this.publishBatch(tx, true, onReadFull))
        : // PGlite is a single connection: a transaction held while publishing would block the
          // consumers' own transactions, which the in-process bus waits for (a deadlock).
          await this.publishBatch(db, false, onReadFull);
    // Counting the backlog reads the whole unsent index: while batches follow one another, once a second.
    if (!outcome.full || performance.now() - this.backlogAt >= BACKLOG_REFRESH_MS) await this.recordBacklog();
    return outcome;
  }

  private async publishBatch(q: Queryable, lock: boolean, onReadFull?: () => void): Promise<PassOutcome> {
    const rows: OutboxRow[] = await kyselyOn<DB>(q)
      .selectFrom('outbox')
      .select(['id', 'payload', 'traceContext'])
      .where('publishedAt', 'is', null)
      .orderBy('id')
      .limit(this.batchSize)
      .$if(lock, (query) => query.forUpdate().skipLocked())
      .execute();
    if (rows.length === this.batchSize) onReadFull?.();
    const sent: number[] = [];
    let failure: { row: OutboxRow; err: unknown } | undefined;
    const { bus } = this.options;
    if (bus.publishBatch !== undefined && rows.length > 0) {
      const publishBatch = bus.publishBatch.bind(bus);
      let confirmed = rows.length;
      try {
        await this.breaker.fire(() =>
          publishBatch(
            rows.map((row) => row.payload),
            rows.map((row) => row.traceContext),
          ),
        );
      } catch (err) {
        confirmed = err instanceof BatchPublishError ? err.confirmed : 0;
        const row = rows[confirmed] as OutboxRow;
        failure = { row, err: err instanceof BatchPublishError ? err.cause : err };
      }
      for (const row of rows.slice(0, confirmed)) {
        this.metrics.published.inc({ relay: this.name });
        await this.options.hooks?.afterPublish?.(row.payload);
        sent.push(row.id);
      }
    } else {
      for (const row of rows) {
        try {
          await publishInTrace(row.payload, row.traceContext, () =>
            this.breaker.fire(() => bus.publish(row.payload)),
          );
        } catch (err) {
          failure = { row, err };
          break;
        }
        this.metrics.published.inc({ relay: this.name });
        await this.options.hooks?.afterPublish?.(row.payload);
        sent.push(row.id);
      }
    }
    if (sent.length > 0) {
      await kyselyOn<DB>(q)
        .updateTable('outbox')
        .set({ publishedAt: this.clock.now() })
        .where('id', '=', sql<number>`any(${sent}::bigint[])`)
        .execute();
    }
    if (failure !== undefined) await this.recordFailure(q, failure.row, failure.err);
    return { published: sent.length, full: failure === undefined && rows.length === this.batchSize };
  }

  /**
   * Whether a pass may claim rows: the breaker is not open, and the broker answered within the
   * last second or answers a probe now. A relay cut off from its broker thus leaves the rows to
   * the other replicas instead of holding them locked while it waits.
   */
  private async brokerAnswers(): Promise<boolean> {
    const { bus } = this.options;
    if (this.breaker.opened) return false;
    if (bus.probe === undefined) return true;
    if (bus.isReady() && performance.now() - this.answeredAt < ANSWER_TRUSTED_MS) return true;
    const probe = bus.probe.bind(bus);
    try {
      await this.breaker.fire(() => probe(this.probeTimeoutMs));
      return true;
    } catch (err) {
      if ((err as { code?: unknown }).code === 'EOPENBREAKER') return false;
      this.metrics.probeFailures.inc({ relay: this.name });
      // Once per outage at warn: a relay cut off probes every pass until its breaker opens.
      const log = this.failuresInARow <= 1 ? this.options.logger.warn : this.options.logger.debug;
      log.call(
        this.options.logger,
        { relay: this.name, err: describeError(err) },
        'broker not answering, outbox rows left to other relays',
      );
      return false;
    }
  }

  private async recordFailure(q: Queryable, row: OutboxRow, err: unknown): Promise<void> {
    if ((err as { code?: unknown }).code === 'EOPENBREAKER') return; // not an attempt: nothing was sent
    this.metrics.failures.inc({ relay: this.name });
    const reason = describeError(err);
    this.options.logger.warn(
      { relay: this.name, eventId: row.payload.id, err: reason },
      'outbox publish failed',
    );
    await kyselyOn<DB>(q)
      .updateTable('outbox')
      .set((eb) => ({ attempts: eb('attempts', '+', 1), lastError: reason }))
      .where('id', '=', row.id)
      .execute();
  }

  /**
   * The unsent rows: how many, and how long the oldest has waited (seconds by the database's own
   * clock, not a sandbox clock; null when none wait). The same count the backlog gauge shows.
   */
  async backlog(): Promise<OutboxBacklog> {
    const row = await this.unsent()
      .select(sql<number | null>`floor(extract(epoch from now() - min(created_at)))::int`.as('oldest'))
      .executeTakeFirst();
    const count = row?.backlog ?? 0;
    return { count, oldestUnsentSeconds: count === 0 ? null : Math.max(0, row?.oldest ?? 0) };
  }

  /** The count of unsent rows (the gauge's: on the unsent index alone, without reading the rows). */
  private unsent() {
    return kyselyOn<DB>(this.options.db)
      .selectFrom('outbox')
      .select(sql<number>`count(*)::int`.as('backlog'))
      .where('publishedAt', 'is', null);
  }

  private async recordBacklog(): Promise<void> {
    this.backlogAt = performance.now();
    const row = await this.unsent().executeTakeFirst();
    this.metrics.backlog.set({ relay: this.name }, row?.backlog ?? 0);
  }
}
