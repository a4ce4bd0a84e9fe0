import { connect } from 'amqplib';
import type { EventEnvelope } from '@svc/contracts/common';
import { AmqpMessageBus } from '@svc/messaging';
import { sleep, startPrivateRabbitMQ, uniqueSuffix, waitFor, type PrivateRabbitMQ } from '@svc/test-kit';
import { anEvent, testLogger } from '../event-builder';

// Restarts a RabbitMQ node of this test's own (stop_app / start_app): never the machine's broker,
// which the other integration and e2e files use at the same time.

const suffix = uniqueSuffix();
const exchange = `test.restart.${suffix}`;
const durableQueue = `test.restart-durable.${suffix}`;
const liveQueue = `test.restart-live.${suffix}`;
const N = 50;
let rabbit: PrivateRabbitMQ | undefined;
let amqpUrl: string;
let bus: AmqpMessageBus;

/** Polls until the broker accepts AMQP connections again. */
async function brokerAnswers(): Promise<void> {
  await waitFor(
    async () => {
      const model = await connect(amqpUrl);
      model.on('error', () => undefined);
      await model.close();
      return true;
    },
    { timeoutMs: 60_000, intervalMs: 250, what: 'RabbitMQ to accept connections' },
  );
}

beforeAll(async () => {
  rabbit = await startPrivateRabbitMQ();
  amqpUrl = rabbit.url;
  bus = await AmqpMessageBus.connect({
    url: amqpUrl,
    exchange,
    logger: testLogger(),
    connectionName: 'messaging-broker-restart-test',
    publishTimeoutMs: 30_000,
    reconnectBackoff: { initialMs: 100, maxMs: 1000 },
  });
}, 160_000);

afterAll(async () => {
  await bus?.close();
  await rabbit?.teardown();
}, 120_000);

describe('AmqpMessageBus across a broker restart', () => {
  it('when the broker restarts, then confirmed messages survive, the bus reconnects and re-subscribes by itself, and publishing works again', async () => {
    const live: string[] = [];
    await bus.subscribe({
      queue: liveQueue,
      patterns: ['restart.live.#'],
      handler: async (e) => void live.push(e.id),
    });
    await bus.declareQueue({ queue: durableQueue, patterns: ['restart.durable.#'] });
    const before = Array.from({ length: N }, (_, i) => anEvent('restart.durable.created', { i }));
    for (const event of before) await bus.publish(event);

    await rabbit!.stopApp();
    await waitFor(() => !bus.isReady(), { timeoutMs: 10_000, what: 'the bus to notice' });
    // Published while the broker is down: must wait for it, never resolve without a confirm.
    const duringOutage = anEvent('restart.live.created', { during: true });
    let outageSettled = false;
    const publishingDuringOutage = bus.publish(duringOutage).finally(() => {
      outageSettled = true;
    });
    await sleep(500);
    expect(outageSettled).toBe(false);
    await rabbit!.startApp();
    await brokerAnswers();

    await waitFor(() => bus.isReady(), { timeoutMs: 30_000, what: 'the bus to reconnect' });
    await publishingDuringOutage;
    const durable: EventEnvelope[] = [];
    await bus.subscribe({
      queue: durableQueue,
      patterns: ['restart.durable.#'],
      handler: async (e) => void durable.push(e),
    });
    await waitFor(() => durable.length >= N, {
      timeoutMs: 30_000,
      what: `${N} messages from before the restart`,
    });
    expect(new Set(durable.map((e) => e.id))).toEqual(new Set(before.map((e) => e.id)));

    const after = anEvent('restart.live.created', { after: true });
    await bus.publish(after);
    await waitFor(() => live.includes(after.id) && live.includes(duringOutage.id), {
      timeoutMs: 30_000,
      what: 'the live consumer to get the messages published during and after the outage',
    });
  }, 120_000);
});
