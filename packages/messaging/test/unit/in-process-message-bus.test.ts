import { InProcessMessageBus, type DeliveryInfo } from '@svc/messaging';
import { sleep, waitFor } from '@svc/test-kit';
import { busContract } from '../bus-contract';
import { anEvent, capturingLogger, databaseDown, gate, testLogger } from '../event-builder';

describe('InProcessMessageBus, the bus contract', () => {
  busContract({
    publishResolves: 'handled',
    timeoutMs: 2000,
    create: async () => {
      const { logger, lines } = capturingLogger();
      const bus = new InProcessMessageBus({
        logger,
        retryBackoff: { initialMs: 1, maxMs: 5 },
        transientBackoff: { initialMs: 1, maxMs: 5 },
      });
      let n = 0;
      return {
        bus,
        logged: lines,
        queueName: (label) => `test.${label}.${(n += 1)}`,
        declareQueue: (queue, patterns, maxAttempts) => bus.declareQueue({ queue, patterns, maxAttempts }),
        readDeadLetters: (queue) => bus.readDeadLetters(queue),
        dispose: () => bus.close(),
      };
    },
  });
});

describe('InProcessMessageBus', () => {
  let bus: InProcessMessageBus;

  beforeEach(() => {
    bus = new InProcessMessageBus({ logger: testLogger(), retryBackoff: { initialMs: 1, maxMs: 5 } });
  });

  afterEach(async () => {
    await bus.close();
  });

  it('when a message matches no declared queue, then publish resolves and the message is dropped', async () => {
    const received: string[] = [];
    await bus.subscribe({
      queue: 'q.boxes',
      patterns: ['reg.box.*'],
      handler: async (e) => void received.push(e.id),
    });

    await bus.publish(anEvent('lic.license.activated'));
    const late = anEvent('lic.license.activated');
    await bus.subscribe({
      queue: 'q.licenses',
      patterns: ['lic.#'],
      handler: async (e) => void received.push(e.id),
    });
    await bus.publish(late);

    expect(received).toEqual([late.id]);
  });

  it('when a handler publishes and awaits another event on its own queue, then nothing deadlocks', async () => {
    const handled: string[] = [];
    await bus.subscribe({
      queue: 'q.chain',
      patterns: ['reg.#'],
      prefetch: 1,
      handler: async (envelope) => {
        if (envelope.type === 'reg.box.created') await bus.publish(anEvent('reg.box.stats_updated'));
        handled.push(envelope.type);
      },
    });

    await bus.publish(anEvent('reg.box.created'));

    await waitFor(() => handled.length === 2, { timeoutMs: 1000, what: 'both events' });
    expect(handled).toEqual(['reg.box.created', 'reg.box.stats_updated']);
  });

  it('when a handler keeps failing, then publish still resolves once the message is dead-lettered', async () => {
    await bus.subscribe({
      queue: 'q.failing',
      patterns: ['reg.#'],
      maxAttempts: 2,
      handler: async () => {
        throw new Error('nope');
      },
    });
    const event = anEvent('reg.box.created');

    await bus.publish(event);

    expect(await bus.deadLetters('q.failing')).toEqual([
      { queue: 'q.failing', envelope: event, attempts: 2, reason: 'Error: nope' },
    ]);
  });

  it('when a consumer has a prefetch of 2, then at most 2 of its messages are in flight at once', async () => {
    let inFlight = 0;
    let peak = 0;
    await bus.subscribe({
      queue: 'q.prefetch',
      patterns: ['reg.#'],
      prefetch: 2,
      handler: async () => {
        inFlight += 1;
        peak = Math.max(peak, inFlight);
        await sleep(5);
        inFlight -= 1;
      },
    });

    await Promise.all(Array.from({ length: 10 }, () => bus.publish(anEvent('reg.box.created'))));

    expect(peak).toBe(2);
  });

  it('when the bus is held until open, then an event published while services still subscribe reaches every queue bound to it', async () => {
    // The embedded default after a crash: the first service's relay publishes the rows the crash
    // left unsent before the later services have subscribed.
    const held = new InProcessMessageBus({ logger: testLogger(), heldUntilOpen: true });
    const received: string[] = [];
    try {
      await held.subscribe({
        queue: 'q.billing',
        patterns: ['enf.#'],
        handler: async (e) => void received.push(`billing ${e.type}`),
      });
      let settled = false;
      const publishing = held.publish(anEvent('enf.violation.created')).then(() => {
        settled = true;
      });
      await held.subscribe({
        queue: 'q.webhooks',
        patterns: ['enf.#'],
        handler: async (e) => void received.push(`webhooks ${e.type}`),
      });
      await sleep(20);
      // Nothing is delivered, and the outbox row is not marked sent, before the bus opens.
      expect(received).toEqual([]);
      expect(settled).toBe(false);
      held.open();
      await publishing;
      expect(received.sort()).toEqual(['billing enf.violation.created', 'webhooks enf.violation.created']);
    } finally {
      await held.close();
    }
  });

  it('when a held bus closes before it opened, then its held publishes reject (the outbox keeps them)', async () => {
    const held = new InProcessMessageBus({ logger: testLogger(), heldUntilOpen: true });
    await held.declareQueue({ queue: 'q.any', patterns: ['reg.#'] });
    const publishing = held.publish(anEvent('reg.box.created'));
    await held.close();
    await expect(publishing).rejects.toThrow(/closed/);
  });

  it('when the bus closes with messages nobody handled, then their publishes reject (the outbox keeps them)', async () => {
    await bus.declareQueue({ queue: 'q.nobody', patterns: ['reg.#'] });
    const publishing = bus.publish(anEvent('reg.box.created'));

    await bus.close();

    await expect(publishing).rejects.toThrow(/closed before the message was handled/);
    await expect(bus.publish(anEvent('reg.box.created'))).rejects.toThrow(/closed/);
  });

  it('when a queue is declared again with another maxAttempts, then it is refused like RabbitMQ would', async () => {
    await bus.subscribe({
      queue: 'q.args',
      patterns: ['reg.#'],
      maxAttempts: 3,
      handler: async () => undefined,
    });

    await expect(
      bus.subscribe({ queue: 'q.args', patterns: ['reg.#'], maxAttempts: 4, handler: async () => undefined }),
    ).rejects.toThrow(/maxAttempts/);
  });

  it('when the bus closes while a message waits for its retry, then close does not wait for the backoff', async () => {
    const slow = new InProcessMessageBus({ logger: testLogger(), retryBackoff: { initialMs: 60_000 } });
    const deliveries: DeliveryInfo[] = [];
    const failed = gate();
    await slow.subscribe({
      queue: 'q.backoff',
      patterns: ['reg.#'],
      handler: async (_e, delivery) => {
        deliveries.push(delivery);
        failed.open();
        throw new Error('later');
      },
    });
    const publishing = slow.publish(anEvent('reg.box.created'));
    await failed.promise;

    const started = performance.now();
    await slow.close();

    expect(performance.now() - started).toBeLessThan(1000);
    await expect(publishing).rejects.toThrow(/closed/);
    expect(deliveries).toHaveLength(1);
  });
});

describe('InProcessMessageBus during an outage (default pace)', () => {
  it('when the database is down for 2.5 s, then the message is retried about once a second (no spin), never dead-lettered, and applied within a second of recovery', async () => {
    const paced = new InProcessMessageBus({ logger: testLogger() });
    let down = true;
    let calls = 0;
    let appliedAt: number | undefined;
    await paced.subscribe({
      queue: 'q.outage',
      patterns: ['reg.#'],
      maxAttempts: 2,
      handler: async () => {
        calls += 1;
        if (down) throw databaseDown();
        appliedAt = performance.now();
      },
    });
    const publishing = paced.publish(anEvent('reg.box.created'));

    await sleep(2500);
    const callsDuringOutage = calls;
    down = false;
    const recoveredAt = performance.now();
    await publishing;

    // 100, 200, 400, 800 ms then 1 s apart: about 6 tries in 2.5 s, not thousands.
    expect(callsDuringOutage).toBeGreaterThanOrEqual(4);
    expect(callsDuringOutage).toBeLessThanOrEqual(8);
    expect((appliedAt ?? Infinity) - recoveredAt).toBeLessThan(1100);
    expect(await paced.deadLetters('q.outage')).toEqual([]);
    await paced.close();
  });
});
