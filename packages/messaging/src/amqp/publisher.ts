// The RabbitMQ bus's publishing: every event confirmed by the broker before it counts as sent,
// retried on a new channel when the old one dropped before its confirm (never lost, possibly doubled).
import type { ConfirmChannel } from 'amqplib';
import type { EventEnvelope } from '@svc/contracts/common';
import type { Logger } from '@svc/logger';
import { BatchPublishError } from '../message-bus';
import { describeError } from '../retry-backoff';
import { messageTraceHeaders, publishInTrace } from '../trace-context';
import type { AmqpConnection } from './connection';

class PublishRefusedError extends Error {
  override readonly name = 'PublishRefusedError';
}

export class AmqpPublisher {
  constructor(
    private readonly connection: AmqpConnection,
    private readonly exchange: string,
    private readonly timeoutMs: number,
    private readonly logger: Logger,
  ) {}

  async publish(envelope: EventEnvelope): Promise<void> {
    const body = Buffer.from(JSON.stringify(envelope));
    const deadline = performance.now() + this.timeoutMs;
    for (;;) {
      const { publisher } = await this.connection.wait(deadline);
      try {
        await this.confirmed(publisher, envelope, body, deadline);
        return;
      } catch (err) {
        if (this.final(err, deadline)) throw err;
        // The channel went down before the confirm: the broker may or may not have the message.
        // Publishing again risks a duplicate, which consumers absorb; losing it is not allowed.
        this.logger.warn({ eventId: envelope.id, err: describeError(err) }, 'publish interrupted, retrying');
      }
    }
  }

  /**
   * Publishes the events back to back on the publisher channel and awaits their confirms
   * together: one round trip per batch instead of one per event, in the same order on the wire.
   * A channel lost half-way is retried from the first unconfirmed event (duplicates possible,
   * losses not); a nack, or no confirm within the timeout, stops the batch there.
   */
  async publishBatch(
    envelopes: EventEnvelope[],
    traceContexts?: Array<Record<string, string> | null>,
  ): Promise<void> {
    const bodies = envelopes.map((envelope) => Buffer.from(JSON.stringify(envelope)));
    const deadline = performance.now() + this.timeoutMs;
    let confirmed = 0;
    while (confirmed < envelopes.length) {
      let outcomes: Array<PromiseSettledResult<void>>;
      try {
        const { publisher } = await this.connection.wait(deadline);
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
      if (this.final(err, deadline)) throw new BatchPublishError(confirmed, err);
      this.logger.warn(
        { eventId: envelopes[confirmed]?.id, err: describeError(err) },
        'batch publish interrupted, retrying from the first unconfirmed event',
      );
    }
  }

  /** A refusal, a closing bus or a deadline passed ends the retries. */
  private final(err: unknown, deadline: number): boolean {
    return err instanceof PublishRefusedError || this.connection.isClosing() || performance.now() >= deadline;
  }

  private confirmed(
    channel: ConfirmChannel,
    envelope: EventEnvelope,
    body: Buffer,
    deadline: number,
  ): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`No publisher confirm within ${this.timeoutMs} ms`)),
        Math.max(0, deadline - performance.now()),
      );
      this.send(channel, envelope, body, (err) => {
        clearTimeout(timer);
        if (err === undefined) resolve();
        else reject(err);
      });
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
        () => reject(new Error(`No publisher confirm within ${this.timeoutMs} ms`)),
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
          new Promise<void>((resolve, reject) =>
            this.send(channel, envelope, bodies[i] as Buffer, (err) =>
              err === undefined ? resolve() : reject(err),
            ),
          ),
      );
      pending.push(Promise.race([confirm, timedOut]));
    }
    timedOut.catch(() => undefined);
    return Promise.allSettled(pending).finally(() => clearTimeout(timer));
  }

  /** Puts one event on the wire; `done` hears its confirm, its refusal, or the channel's loss. */
  private send(
    channel: ConfirmChannel,
    envelope: EventEnvelope,
    body: Buffer,
    done: (err: Error | undefined) => void,
  ): void {
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
        (err: unknown) => done(err === null || err === undefined ? undefined : confirmError(envelope, err)),
      );
    } catch (err) {
      // The channel closed under us: amqplib throws at once.
      done(err instanceof Error ? err : new Error(String(err)));
    }
  }
}

/** What a publisher confirm callback's error means: a refusal (nack) is final, the rest may be retried. */
function confirmError(envelope: EventEnvelope, err: unknown): Error {
  if (err instanceof Error && err.message === 'message nacked')
    return new PublishRefusedError(`RabbitMQ refused event ${envelope.id} (nack)`);
  return err instanceof Error ? err : new Error(String(err));
}
