import { AmqpMessageBus } from '@svc/messaging';
import { infrastructure, uniqueSuffix, waitFor } from '@svc/test-kit';
import { AmqpAdmin } from '../amqp-admin';
import { busContract } from '../bus-contract';
import { anEvent, capturingLogger, testLogger } from '../event-builder';

const suffix = uniqueSuffix();
const exchange = `test.messaging.${suffix}`;
const queues: string[] = [];
let amqpUrl: string;
let admin: AmqpAdmin;

function newBus(overrides: Partial<ConstructorParameters<typeof AmqpMessageBus>[0]> = {}): AmqpMessageBus {
  return new AmqpMessageBus({
    url: amqpUrl,
    exchange,
    logger: testLogger(),
    connectionName: 'messaging-test',
    retryBackoff: { initialMs: 10, maxMs: 50 },
    ...overrides,
  });
}

function queueName(label: string): string {
  const name = `test.${label}.${suffix}.${queues.length}`;
  queues.push(name);
  return name;
}

beforeAll(async () => {
  amqpUrl = (await infrastructure()).amqpUrl;
  admin = await AmqpAdmin.open(amqpUrl);
}, 60_000);

afterAll(async () => {
  await admin.deleteTopology(queues, [exchange, `${exchange}.dlx`]);
  await admin.close();
});

describe('AmqpMessageBus, the bus contract', () => {
  busContract({
    publishResolves: 'confirmed',
    create: async () => {
      const { logger, lines } = capturingLogger();
      const bus = await AmqpMessageBus.connect({
        url: amqpUrl,
        exchange,
        logger,
        retryBackoff: { initialMs: 10, maxMs: 50 },
        transientBackoff: { initialMs: 5, maxMs: 20 },
        // Short, so that a long outage's move to the back of the queue happens in these tests.
        transientHoldMs: 100,
      });
      return {
        bus,
        logged: lines,
        queueName,
        declareQueue: (queue, patterns, maxAttempts) => bus.declareQueue({ queue, patterns, maxAttempts }),
        readDeadLetters: (queue) => bus.readDeadLetters(queue),
        dispose: () => bus.close(),
      };
    },
  });
});

describe('AmqpMessageBus', () => {
  let bus: AmqpMessageBus;

  beforeEach(async () => {
    bus = newBus();
    await bus.start();
  });

  afterEach(async () => {
    await bus.close();
  });

  it('when connected, then it is ready, and after close it is not', async () => {
    expect(bus.isReady()).toBe(true);
    await bus.close();
    expect(bus.isReady()).toBe(false);
    await expect(bus.publish(anEvent('reg.box.created'))).rejects.toThrow(/closed/);
  });

  it('when publish resolves, then the message is persisted in the queue even if the publisher closes at once', async () => {
    const queue = queueName('durable');
    await bus.declareQueue({ queue, patterns: ['reg.box.created'] });
    const publisher = newBus();

    await publisher.publish(anEvent('reg.box.created'));
    await publisher.close();

    expect(await admin.messageCount(queue)).toBe(1);
  });

  it('when a message arrives, then it carries the AMQP properties of the envelope', async () => {
    const queue = queueName('props');
    await bus.declareQueue({ queue, patterns: ['reg.box.created'] });
    const event = anEvent('reg.box.created', { boxId: 'box_1' });

    await bus.publish(event);

    const message = await admin.channel.get(queue, { noAck: true });
    expect(message).not.toBe(false);
    if (message === false) return;
    expect(message.fields.routingKey).toBe('reg.box.created');
    expect(message.properties).toMatchObject({
      messageId: event.id,
      type: 'reg.box.created',
      contentType: 'application/json',
      deliveryMode: 2,
    });
    expect(JSON.parse(message.content.toString())).toEqual(event);
  });

  it('when the body is not JSON at all, then it is dead-lettered with its raw body', async () => {
    const queue = queueName('garbage');
    let calls = 0;
    await bus.subscribe({ queue, patterns: ['reg.#'], handler: async () => void (calls += 1) });

    admin.channel.publish(exchange, 'reg.box.created', Buffer.from('{not json'), { persistent: true });

    const letters = await waitFor(
      async () => {
        const read = await bus.readDeadLetters(queue);
        return read.length > 0 ? read : undefined;
      },
      { what: 'a dead letter' },
    );
    expect(letters[0]).toMatchObject({
      envelope: undefined,
      body: '{not json',
      attempts: 1,
      routingKey: 'reg.box.created',
    });
    expect(letters[0]?.reason).toMatch(/^poison: SyntaxError/);
    expect(calls).toBe(0);
  });

  it('when a queue is subscribed again with another maxAttempts, then subscribe is refused and the bus stays usable', async () => {
    const queue = queueName('args');
    const received: string[] = [];
    await bus.subscribe({
      queue,
      patterns: ['reg.#'],
      maxAttempts: 3,
      handler: async (e) => void received.push(e.id),
    });

    await expect(
      bus.subscribe({ queue, patterns: ['reg.#'], maxAttempts: 4, handler: async () => undefined }),
    ).rejects.toThrow(/PRECONDITION_FAILED/);

    expect(bus.isReady()).toBe(true);
    const event = anEvent('reg.box.created');
    await bus.publish(event);
    await waitFor(() => received.includes(event.id), { what: 'the first consumer to keep working' });
  });

  it('when events are published one after another, then each confirm comes back in milliseconds (no Nagle delay)', async () => {
    const queue = queueName('latency');
    await bus.declareQueue({ queue, patterns: ['reg.latency.#'] });
    await bus.publish(anEvent('reg.latency.warmup'));
    const started = performance.now();

    for (let i = 0; i < 100; i += 1)
      await bus.publish(anEvent('reg.latency.measured', { note: 'x'.repeat(i * 50) }));

    // Bodies of a few KB go out in several writes: without noDelay, Nagle holds the last one until
    // the broker's delayed ACK (~30-44 ms a publish here); with it, about 2 ms.
    expect((performance.now() - started) / 100).toBeLessThan(15);
  });

  it('when the broker cannot be reached, then connect fails within the timeout instead of hanging', async () => {
    const started = performance.now();

    await expect(
      AmqpMessageBus.connect({
        url: 'amqp://guest:guest@127.0.0.1:1',
        logger: testLogger(),
        publishTimeoutMs: 500,
      }),
    ).rejects.toThrow(/unavailable/);

    expect(performance.now() - started).toBeLessThan(3000);
  });

  it('when consumers die mid-handler on every delivery, then the broker dead-letters the message after maxAttempts deliveries', async () => {
    const queue = queueName('crashing');
    await bus.declareQueue({ queue, patterns: ['reg.#'], maxAttempts: 3 });
    await bus.publish(anEvent('reg.box.created'));
    const counts: unknown[] = [];

    for (let i = 0; i < 3; i += 1) {
      // A consumer that takes the message and dies before settling it: its channel just goes away.
      const channel = await admin.model.createChannel();
      const message = await waitFor(async () => (await channel.get(queue, { noAck: false })) || undefined, {
        what: `delivery ${i + 1}`,
      });
      counts.push(message.properties.headers?.['x-delivery-count'] ?? 0);
      await channel.close();
    }

    const letters = await waitFor(
      async () => {
        const read = await bus.readDeadLetters(queue);
        return read.length > 0 ? read : undefined;
      },
      { what: 'a dead letter' },
    );
    expect(counts).toEqual([0, 1, 2]);
    expect(letters).toHaveLength(1);
    expect(letters[0]?.reason).toBe('delivery_limit');
    expect(await admin.messageCount(queue)).toBe(0);
  });
});
