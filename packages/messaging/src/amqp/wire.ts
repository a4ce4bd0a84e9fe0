// What the RabbitMQ bus's parts agree on: the exchanges and queues it declares, the headers its
// copies carry, and the small amqplib calls every part makes (a confirmed publish, a safe ack).
import type { Channel, ConfirmChannel, Message } from 'amqplib';

/** The bus's two exchanges: the domain events' topic exchange and its dead-letter exchange. */
export interface AmqpExchanges {
  /** The durable topic exchange of domain events (`svc.events` by default). */
  exchange: string;
  /** The direct exchange dead letters go through to `${queue}.dlq` (`${exchange}.dlx`). */
  deadLetterExchange: string;
}

export const DEFAULT_MAX_ATTEMPTS = 5;

export const HEADER_REASON = 'x-svc-reason';
export const HEADER_ATTEMPTS = 'x-svc-attempts';
export const HEADER_DEAD_AT = 'x-svc-dead-lettered-at';
export const HEADER_ROUTING_KEY = 'x-svc-routing-key';
// A message moved to the back of its queue carries what its earlier copies went through.
export const HEADER_PRIOR_DELIVERIES = 'x-svc-prior-deliveries';
export const HEADER_PRIOR_FAILURES = 'x-svc-prior-failures';
export const HEADER_REPLAYS = 'x-svc-replays';
// Headers the broker sets on a delivery or a dead letter; a copy we publish starts without them.
const BROKER_HEADERS = [
  'x-delivery-count',
  'x-death',
  'x-first-death-reason',
  'x-first-death-queue',
  'x-first-death-exchange',
  'x-last-death-reason',
  'x-last-death-queue',
  'x-last-death-exchange',
];

/** Declares both exchanges (idempotent). */
export async function assertExchanges(
  channel: Channel,
  { exchange, deadLetterExchange }: AmqpExchanges,
): Promise<void> {
  await channel.assertExchange(exchange, 'topic', { durable: true });
  await channel.assertExchange(deadLetterExchange, 'direct', { durable: true });
}

/**
 * Declares a consumer's queue: a durable quorum queue bound to its patterns, dead-lettering into
 * the quorum queue `${queue}.dlq` through the dead-letter exchange.
 */
export async function assertQueueTopology(
  channel: Channel,
  exchanges: AmqpExchanges,
  queue: string,
  patterns: string[],
  maxAttempts: number,
): Promise<void> {
  await assertExchanges(channel, exchanges);
  await channel.assertQueue(`${queue}.dlq`, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
  await channel.bindQueue(`${queue}.dlq`, exchanges.deadLetterExchange, queue);
  await channel.assertQueue(queue, {
    durable: true,
    arguments: {
      'x-queue-type': 'quorum',
      'x-dead-letter-exchange': exchanges.deadLetterExchange,
      'x-dead-letter-routing-key': queue,
      // The broker dead-letters a message once it has been returned maxAttempts times: a
      // consumer that crashes mid-handler on every delivery cannot loop forever.
      'x-delivery-limit': maxAttempts - 1,
      // Broker-side dead-lettering that cannot lose a message (RabbitMQ 3.10+).
      'x-dead-letter-strategy': 'at-least-once',
      'x-overflow': 'reject-publish',
    },
  });
  for (const pattern of patterns) await channel.bindQueue(queue, exchanges.exchange, pattern);
}

/** Deliveries before this one, as the quorum queue counts them. */
export function deliveryCount(message: Message): number {
  return headerNumber(message.properties.headers?.['x-delivery-count']) ?? 0;
}

export function headerNumber(value: unknown): number | undefined {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  return undefined;
}

/** The headers of `headers` without those the broker sets (a copy). */
export function withoutBrokerHeaders(headers: Record<string, unknown> | undefined): Record<string, unknown> {
  const copy: Record<string, unknown> = { ...headers };
  for (const name of BROKER_HEADERS) delete copy[name];
  return copy;
}

/** The properties of a persistent copy of `message` carrying `headers`. */
export function copyProperties(
  message: Message,
  headers: Record<string, unknown>,
): Parameters<ConfirmChannel['publish']>[3] {
  return {
    persistent: true,
    contentType: message.properties.contentType ?? 'application/json',
    messageId: message.properties.messageId,
    type: message.properties.type,
    headers,
  };
}

/** Publishes on a confirm channel and resolves once the broker confirmed it. */
export function publishConfirmed(
  channel: ConfirmChannel,
  exchange: string,
  routingKey: string,
  content: Buffer,
  options: Parameters<ConfirmChannel['publish']>[3],
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    try {
      channel.publish(exchange, routingKey, content, options, (err: unknown) =>
        err === null || err === undefined ? resolve() : reject(new Error(String(err))),
      );
    } catch (err) {
      // The channel closed under us: amqplib throws at once.
      reject(err instanceof Error ? err : new Error(String(err)));
    }
  });
}

/** Acks or nacks; on a channel that has closed meanwhile the broker redelivers, which is safe. */
export function settle(action: () => void): void {
  try {
    action();
  } catch {
    // IllegalOperationError: channel closed. The message returns to the queue by itself.
  }
}
