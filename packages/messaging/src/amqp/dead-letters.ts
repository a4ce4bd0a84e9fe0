// The RabbitMQ bus's dead letters: a message's copy into `${queue}.dlq` with its reason, and the
// operators' reads of those queues (count, list without taking, take, replay into the queue).
import { setTimeout as sleep } from 'node:timers/promises';
import type { Channel, ConfirmChannel, ConsumeMessage, Message } from 'amqplib';
import type { Clock } from '@svc/clock';
import { eventEnvelopeSchema, type EventEnvelope } from '@svc/contracts/common';
import type { Logger } from '@svc/logger';
import type { DeadLetter, DeadLetterSummary } from '../message-bus';
import type { AmqpConnection } from './connection';
import {
  copyProperties,
  HEADER_ATTEMPTS,
  HEADER_DEAD_AT,
  HEADER_PRIOR_DELIVERIES,
  HEADER_PRIOR_FAILURES,
  HEADER_REASON,
  HEADER_REPLAYS,
  HEADER_ROUTING_KEY,
  headerNumber,
  publishConfirmed,
  withoutBrokerHeaders,
} from './wire';

/** How long `list` waits for the letters it read to be counted in their queue again. */
const REQUEUE_WAIT_MS = 2000;

/** A message read from a dead-letter queue; `envelope` is missing when the body was not one. */
export interface AmqpDeadLetter extends Omit<DeadLetter, 'envelope'> {
  envelope: EventEnvelope | undefined;
  /** The body as it was received (poison may not even be JSON). */
  body: string;
  routingKey: string;
}

export class AmqpDeadLetters {
  constructor(
    private readonly connection: AmqpConnection,
    private readonly deadLetterExchange: string,
    private readonly clock: Clock,
    private readonly logger: Logger,
    /** The attempts a queue's consumer allows, when it is known here (for letters that do not say). */
    private readonly maxAttemptsOf: (queue: string) => number | undefined,
  ) {}

  /** Copies the message into the dead-letter queue with its reason; resolves once the broker confirmed the copy. */
  async copy(
    channel: ConfirmChannel,
    queue: string,
    message: ConsumeMessage,
    attempts: number,
    reason: string,
  ): Promise<void> {
    this.logger.error(
      { queue, messageId: message.properties.messageId, attempts, reason },
      'message dead-lettered',
    );
    const headers = {
      ...withoutBrokerHeaders(message.properties.headers),
      [HEADER_REASON]: reason,
      [HEADER_ATTEMPTS]: attempts,
      [HEADER_DEAD_AT]: this.clock.now().toISOString(),
      [HEADER_ROUTING_KEY]: message.properties.headers?.[HEADER_ROUTING_KEY] ?? message.fields.routingKey,
    };
    await publishConfirmed(
      channel,
      this.deadLetterExchange,
      queue,
      message.content,
      copyProperties(message, headers),
    );
  }

  /**
   * Takes up to `max` messages out of `${queue}.dlq` (for operators and tests). Each is removed
   * from the dead-letter queue once read.
   */
  read(queue: string, max: number): Promise<AmqpDeadLetter[]> {
    return this.connection.withChannel(async (channel) => {
      const letters: AmqpDeadLetter[] = [];
      let last: Message | undefined;
      while (letters.length < max) {
        const message = await channel.get(`${queue}.dlq`, { noAck: false });
        if (message === false) break;
        letters.push(this.toDeadLetter(queue, message));
        last = message;
      }
      if (last !== undefined) channel.ack(last, true);
      return letters;
    });
  }

  count(queue: string): Promise<number> {
    return this.connection.withChannel(
      async (channel) => (await channel.checkQueue(`${queue}.dlq`)).messageCount,
    );
  }

  /**
   * Reads without taking: the messages read are given back to the dead-letter queue before this
   * returns, so a count right after sees them. basic.recover's answer does not say they are back:
   * the channel casts the requeue to the queue, and the queue answers a count (a prioritised call)
   * ahead of casts waiting in its mailbox. So the count is polled, on this channel, until the queue
   * holds as many as were read (at most REQUEUE_WAIT_MS).
   */
  list(queue: string, limit: number): Promise<DeadLetterSummary[]> {
    return this.connection.withChannel(async (channel: Channel) => {
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
      const deadline = performance.now() + REQUEUE_WAIT_MS;
      while (letters.length > 0 && performance.now() < deadline) {
        if ((await channel.checkQueue(`${queue}.dlq`)).messageCount >= letters.length) break;
        await sleep(5);
      }
      return letters;
    });
  }

  /** Moves up to `limit` dead letters back into their consumer's queue, each once it is confirmed there. */
  async replay(queue: string, limit: number): Promise<number> {
    const replayed = await this.connection.withConfirmChannel(async (channel) => {
      let moved = 0;
      while (moved < limit) {
        const message = await channel.get(`${queue}.dlq`, { noAck: false });
        if (message === false) break;
        const headers = withoutBrokerHeaders(message.properties.headers);
        for (const name of [HEADER_REASON, HEADER_ATTEMPTS, HEADER_DEAD_AT]) delete headers[name];
        delete headers[HEADER_PRIOR_DELIVERIES];
        delete headers[HEADER_PRIOR_FAILURES];
        headers[HEADER_REPLAYS] = (headerNumber(headers[HEADER_REPLAYS]) ?? 0) + 1;
        // Straight into the consumer's queue (default exchange): the other consumers of the event
        // handled it already and must not see it again.
        await publishConfirmed(channel, '', queue, message.content, copyProperties(message, headers));
        // Only now: an unconfirmed copy leaves the dead letter where it was.
        channel.ack(message);
        moved += 1;
      }
      return moved;
    });
    if (replayed > 0) this.logger.info({ queue, replayed }, 'dead letters replayed');
    return replayed;
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
    const attempts = headerNumber(headers[HEADER_ATTEMPTS]) ?? this.maxAttemptsOf(queue) ?? 0;
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
