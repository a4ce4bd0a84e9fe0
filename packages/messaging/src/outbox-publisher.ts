import type { EventEnvelope } from '@svc/contracts/common';
import type { Logger } from '@svc/logger';
import { BatchPublishError, type MessageBus } from './message-bus';
import type { OutboxRow } from './outbox-claims';
import type { OutboxMetrics } from './outbox-metrics';
import type { OutboxRelayBreaker } from './outbox-relay-breaker';
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

/** What publishing a batch came to: its first `confirmed` rows are safe. */
export interface Published {
  confirmed: number;
  failure?: { row: OutboxRow; err: unknown };
}

/** The relay's side of the bus: a batch of rows out, in order, through the breaker. */
export class OutboxPublisher {
  constructor(
    private readonly name: string,
    private readonly bus: MessageBus,
    private readonly breaker: OutboxRelayBreaker,
    private readonly metrics: OutboxMetrics,
    private readonly logger: Logger,
    private readonly hooks: OutboxRelayHooks | undefined,
  ) {}

  /** Publishes `rows` in order until one fails; the hook runs after each confirmed one. */
  async publish(rows: OutboxRow[]): Promise<Published> {
    const { bus } = this;
    if (rows.length === 0) return { confirmed: 0 };
    if (bus.publishBatch !== undefined) {
      const publishBatch = bus.publishBatch.bind(bus);
      let confirmed = rows.length;
      let failure: Published['failure'];
      try {
        await this.breaker.fire(() =>
          publishBatch(
            rows.map((row) => row.payload),
            rows.map((row) => row.traceContext),
          ),
        );
      } catch (err) {
        confirmed = err instanceof BatchPublishError ? err.confirmed : 0;
        failure = {
          row: rows[confirmed] as OutboxRow,
          err: err instanceof BatchPublishError ? err.cause : err,
        };
      }
      for (const row of rows.slice(0, confirmed)) await this.confirmed(row);
      return failure === undefined ? { confirmed } : { confirmed, failure };
    }
    for (const [index, row] of rows.entries()) {
      try {
        await publishInTrace(row.payload, row.traceContext, () =>
          this.breaker.fire(() => bus.publish(row.payload)),
        );
      } catch (err) {
        return { confirmed: index, failure: { row, err } };
      }
      await this.confirmed(row);
    }
    return { confirmed: rows.length };
  }

  private async confirmed(row: OutboxRow): Promise<void> {
    this.metrics.published.inc({ relay: this.name });
    await this.hooks?.afterPublish?.(row.payload);
  }

  /** Counts and logs a failed attempt (the caller records it on the row). */
  countFailure(row: OutboxRow, err: unknown): void {
    this.metrics.failures.inc({ relay: this.name });
    this.logger.warn(
      { relay: this.name, eventId: row.payload.id, err: describeError(err) },
      'outbox publish failed',
    );
  }
}
