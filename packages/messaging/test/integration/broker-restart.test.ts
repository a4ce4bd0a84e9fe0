import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { connect } from 'amqplib';
import type { EventEnvelope } from '@svc/contracts';
import { AmqpMessageBus } from '@svc/messaging';
import { infrastructure, sleep, uniqueSuffix, waitFor } from '@svc/test-kit';
import { AmqpAdmin } from '../amqp-admin';
import { holdBrokerExclusive } from '../broker-lock';
import { anEvent, testLogger } from '../event-builder';

// Restarts the machine's RabbitMQ application (rabbitmqctl stop_app / start_app). It holds the
// broker lock alone, so the other messaging test files wait for it instead of failing.

const run = promisify(execFile);
const suffix = uniqueSuffix();
const exchange = `test.restart.${suffix}`;
const durableQueue = `test.restart-durable.${suffix}`;
const liveQueue = `test.restart-live.${suffix}`;
const N = 50;
let amqpUrl: string;
let bus: AmqpMessageBus;
let releaseBroker: (() => Promise<void>) | undefined;

async function rabbitmqctl(...args: string[]): Promise<void> {
  await run('rabbitmqctl', args, { timeout: 60_000 });
}

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
  releaseBroker = await holdBrokerExclusive('broker-restart');
  amqpUrl = (await infrastructure()).amqpUrl;
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
  // Whatever happened above, leave the broker running for everyone else.
  await rabbitmqctl('start_app').catch(() => undefined);
  await brokerAnswers().catch(() => undefined);
  await bus?.close();
  const admin = await AmqpAdmin.open(amqpUrl);
  await admin.deleteTopology([durableQueue, liveQueue], [exchange, `${exchange}.dlx`]);
  await admin.close();
  await releaseBroker?.();
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

    await rabbitmqctl('stop_app');
    await waitFor(() => !bus.isReady(), { timeoutMs: 10_000, what: 'the bus to notice' });
    // Published while the broker is down: must wait for it, never resolve without a confirm.
    const duringOutage = anEvent('restart.live.created', { during: true });
    let outageSettled = false;
    const publishingDuringOutage = bus.publish(duringOutage).finally(() => {
      outageSettled = true;
    });
    await sleep(500);
    expect(outageSettled).toBe(false);
    await rabbitmqctl('start_app');
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
