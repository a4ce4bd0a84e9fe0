/**
 * The same-run baseline of the enforcement bench: what amqplib alone does on the same broker with
 * the same payloads. One connection publishes every payload on a confirm channel, WINDOW messages
 * at a time with their confirms awaited together (`waitForConfirms`); another consumes them from a
 * durable quorum queue (the queue type the bus declares) with manual acks, PREFETCH unacked at
 * most. Both connections use `noDelay`, as the bus does. No database, no outbox: the floor the
 * relay is measured against.
 */
import { randomUUID } from 'node:crypto';
import { performance } from 'node:perf_hooks';
import { connect } from 'amqplib';

export const BASELINE_WINDOW = 500;
export const CONSUMER_PREFETCH = 100;

export interface BaselinePayload {
  routingKey: string;
  body: Buffer;
  messageId: string;
}

export interface BaselineResult {
  messages: number;
  seconds: number;
  perSecond: number;
}

export async function amqplibBaseline(amqpUrl: string, payloads: BaselinePayload[]): Promise<BaselineResult> {
  const tag = randomUUID().slice(0, 8);
  const exchange = `bench.baseline.${tag}`;
  const queue = `bench.baseline.${tag}`;
  const consumerConnection = await connect(amqpUrl, { noDelay: true });
  const publisherConnection = await connect(amqpUrl, { noDelay: true });
  try {
    const consumer = await consumerConnection.createChannel();
    await consumer.assertExchange(exchange, 'topic', { durable: true });
    await consumer.assertQueue(queue, { durable: true, arguments: { 'x-queue-type': 'quorum' } });
    await consumer.bindQueue(queue, exchange, '#');
    await consumer.prefetch(CONSUMER_PREFETCH);
    let consumed = 0;
    let done: () => void = () => undefined;
    const allConsumed = new Promise<void>((resolve) => (done = resolve));
    const started = performance.now();
    await consumer.consume(
      queue,
      (message) => {
        if (message === null) return;
        consumer.ack(message);
        consumed += 1;
        if (consumed === payloads.length) done();
      },
      { noAck: false },
    );
    const publisher = await publisherConnection.createConfirmChannel();
    for (let from = 0; from < payloads.length; from += BASELINE_WINDOW) {
      for (const payload of payloads.slice(from, from + BASELINE_WINDOW)) {
        publisher.publish(exchange, payload.routingKey, payload.body, {
          persistent: true,
          contentType: 'application/json',
          messageId: payload.messageId,
        });
      }
      await publisher.waitForConfirms();
    }
    await allConsumed;
    const seconds = (performance.now() - started) / 1000;
    await consumer.deleteQueue(queue);
    await consumer.deleteExchange(exchange);
    return { messages: payloads.length, seconds, perSecond: payloads.length / seconds };
  } finally {
    await publisherConnection.close().catch(() => undefined);
    await consumerConnection.close().catch(() => undefined);
  }
}
