import CircuitBreaker from 'opossum';
import type { Logger } from '@svc/logger';
import type { MessageBus } from './message-bus';
import type { OutboxMetrics } from './outbox-metrics';
import { describeError } from './retry-backoff';

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

/** A broker that answered this recently, with no failure since, is not probed before rows are claimed. */
const ANSWER_TRUSTED_MS = 1000;

/** The default bound on waiting for confirms while rows are held, on a bus over the network. */
const NETWORK_PUBLISH_TIMEOUT_MS = 3000;

/** The breaker refused the call: nothing was sent, so it is not an attempt. */
export function isOpenBreaker(err: unknown): boolean {
  return (err as { code?: unknown }).code === 'EOPENBREAKER';
}

/**
 * The relay's circuit breaker and its view of the broker: every publish goes through `fire`, and
 * `brokerAnswers` says whether a pass may claim rows (ADR 0022, issue #34).
 */
export class OutboxRelayBreaker {
  private readonly breaker: CircuitBreaker<[() => Promise<void>], void>;
  private readonly probeTimeoutMs: number;
  /** When the broker last answered (performance.now()); -Infinity after a failure. */
  private answeredAt = Number.NEGATIVE_INFINITY;
  private failuresInARow = 0;

  constructor(
    private readonly name: string,
    private readonly bus: MessageBus,
    private readonly logger: Logger,
    private readonly metrics: OutboxMetrics,
    options: OutboxRelayBreakerOptions = {},
  ) {
    const overNetwork = bus.probe !== undefined;
    this.probeTimeoutMs = options.probeTimeoutMs ?? 1000;
    this.breaker = new CircuitBreaker((call: () => Promise<void>) => call(), {
      name: `outbox-relay:${name}`,
      timeout: options.timeoutMs ?? (overNetwork ? NETWORK_PUBLISH_TIMEOUT_MS : false),
      errorThresholdPercentage: options.errorThresholdPercentage ?? 50,
      resetTimeout: options.resetTimeoutMs ?? 5000,
      volumeThreshold: options.volumeThreshold ?? 3,
    });
    // opossum opens on a failure rate within its 10 s window: a broker that makes each attempt
    // wait seconds never fills the window. Failures in a row open it too, however far apart.
    const consecutiveFailures = options.consecutiveFailures ?? 3;
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
      metrics.breakerOpen.set({ relay: name }, 1);
      logger.warn({ relay: name }, 'outbox publishing breaker open');
    });
    this.breaker.on('close', () => metrics.breakerOpen.set({ relay: name }, 0));
    metrics.breakerOpen.set({ relay: name }, 0);
  }

  /** Runs a publish through the breaker (its timeout, its failure counts). */
  fire(call: () => Promise<void>): Promise<void> {
    return this.breaker.fire(call);
  }

  /**
   * Whether a pass may claim rows: the breaker is not open, and the broker answered within the
   * last second or answers a probe now. A relay cut off from its broker thus leaves the rows to
   * the other replicas instead of holding them locked while it waits.
   */
  async brokerAnswers(): Promise<boolean> {
    const { bus } = this;
    if (this.breaker.opened) return false;
    if (bus.probe === undefined) return true;
    if (bus.isReady() && performance.now() - this.answeredAt < ANSWER_TRUSTED_MS) return true;
    const probe = bus.probe.bind(bus);
    try {
      await this.breaker.fire(() => probe(this.probeTimeoutMs));
      return true;
    } catch (err) {
      if (isOpenBreaker(err)) return false;
      this.metrics.probeFailures.inc({ relay: this.name });
      // Once per outage at warn: a relay cut off probes every pass until its breaker opens.
      const log = this.failuresInARow <= 1 ? this.logger.warn : this.logger.debug;
      log.call(
        this.logger,
        { relay: this.name, err: describeError(err) },
        'broker not answering, outbox rows left to other relays',
      );
      return false;
    }
  }
}
