import amqp from 'amqplib';

/** The exchange every service publishes its events on. */
export const EVENTS_EXCHANGE = 'svc.events';

export interface ObservedMessage {
  routingKey: string;
  // Tests read event bodies as loosely typed JSON.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  body: any;
}

export interface TestBroker {
  /** Every message routed to the watched patterns, in arrival order. */
  received: ObservedMessage[];
  /** Publishes an envelope as a service's relay would (routing key = type), waiting for the confirm. */
  publish(envelope: { id: string; type: string }): Promise<void>;
  /** How many messages wait in a durable queue; undefined when the queue does not exist. */
  waiting(queue: string): Promise<number | undefined>;
  close(): Promise<void>;
}

/**
 * A test's own view of the event bus: a temporary queue bound to `watch` patterns on the
 * services' exchange, and confirmed publishing of envelopes built with the contracts definitions.
 */
export async function connectTestBroker(amqpUrl: string, watch: string[] = []): Promise<TestBroker> {
  const connection = await amqp.connect(amqpUrl);
  const channel = await connection.createConfirmChannel();
  await channel.assertExchange(EVENTS_EXCHANGE, 'topic', { durable: true });
  const received: ObservedMessage[] = [];
  if (watch.length > 0) {
    const { queue } = await channel.assertQueue('', { exclusive: true, autoDelete: true });
    for (const pattern of watch) await channel.bindQueue(queue, EVENTS_EXCHANGE, pattern);
    await channel.consume(
      queue,
      (message) => {
        if (message === null) return;
        received.push({
          routingKey: message.fields.routingKey,
          body: JSON.parse(message.content.toString('utf8')),
        });
      },
      { noAck: true },
    );
  }
  return {
    received,
    publish: async (envelope) => {
      channel.publish(EVENTS_EXCHANGE, envelope.type, Buffer.from(JSON.stringify(envelope)), {
        persistent: true,
        contentType: 'application/json',
        messageId: envelope.id,
      });
      await channel.waitForConfirms();
    },
    waiting: async (queue) => {
      // A passive check of a missing queue closes its channel: use one of its own.
      const probe = await connection.createChannel();
      probe.on('error', () => undefined);
      try {
        return (await probe.checkQueue(queue)).messageCount;
      } catch {
        return undefined;
      } finally {
        await probe.close().catch(() => undefined);
      }
    },
    close: async () => {
      await connection.close();
    },
  };
}
