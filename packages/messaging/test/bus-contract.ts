import type { EventEnvelope } from '@svc/contracts';
import type { DeliveryInfo, MessageBus } from '@svc/messaging';
import { sleep, waitFor } from '@svc/test-kit';
import { anEvent, gate } from './event-builder';

/** What the contract needs from one bus implementation, fresh for each test. */
export interface BusFixture {
  bus: MessageBus;
  /** A queue name no other test or run uses. */
  queueName(label: string): string;
  /** Declares a queue and its bindings without a consumer. */
  declareQueue(queue: string, patterns: string[], maxAttempts?: number): Promise<void>;
  /** Takes what the queue's dead-letter queue holds. */
  readDeadLetters(
    queue: string,
  ): Promise<Array<{ envelope?: EventEnvelope; attempts: number; reason: string }>>;
  dispose(): Promise<void>;
}

export interface BusContractOptions {
  create(): Promise<BusFixture>;
  /**
   * When `publish` resolves: `confirmed` once the broker holds the message (RabbitMQ),
   * `handled` once every queue it was routed to has settled it (in process).
   */
  publishResolves: 'confirmed' | 'handled';
  /** Time allowed for a delivery to show up. */
  timeoutMs?: number;
}

interface Received {
  envelope: EventEnvelope;
  delivery: DeliveryInfo;
}

/** The delivery semantics every MessageBus must have, run against each implementation. */
export function busContract(options: BusContractOptions): void {
  const timeoutMs = options.timeoutMs ?? 5000;
  let fixture: BusFixture;

  beforeEach(async () => {
    fixture = await options.create();
  });

  afterEach(async () => {
    await fixture.dispose();
  });

  function recorder(): {
    received: Received[];
    handler: (e: EventEnvelope, d: DeliveryInfo) => Promise<void>;
  } {
    const received: Received[] = [];
    return {
      received,
      handler: async (envelope, delivery) => {
        received.push({ envelope, delivery });
      },
    };
  }

  /** Waits for `count` deliveries, then a little longer to catch any that should not come. */
  async function expectDeliveries(received: Received[], count: number): Promise<void> {
    await waitFor(() => received.length >= count, { timeoutMs, what: `${count} deliveries` });
    await sleep(150);
    expect(received).toHaveLength(count);
  }

  it('when events are published, then each queue receives exactly those its patterns match (* one word, # any)', async () => {
    const { bus } = fixture;
    const star = recorder();
    const hash = recorder();
    const leadingStar = recorder();
    await bus.subscribe({ queue: fixture.queueName('star'), patterns: ['reg.box.*'], handler: star.handler });
    await bus.subscribe({ queue: fixture.queueName('hash'), patterns: ['reg.#'], handler: hash.handler });
    await bus.subscribe({
      queue: fixture.queueName('leading-star'),
      patterns: ['*.claim.created', 'lic.license.#'],
      handler: leadingStar.handler,
    });

    for (const type of [
      'reg.box.created',
      'reg.claim.created',
      'lic.claim.created',
      'reg.box.stats.updated',
      'lic.license.x.y',
    ]) {
      await bus.publish(anEvent(type));
    }

    await expectDeliveries(star.received, 1);
    await expectDeliveries(hash.received, 3);
    await expectDeliveries(leadingStar.received, 3);
    expect(star.received.map((r) => r.envelope.type)).toEqual(['reg.box.created']);
    expect(hash.received.map((r) => r.envelope.type).sort()).toEqual(
      ['reg.box.created', 'reg.box.stats.updated', 'reg.claim.created'].sort(),
    );
    expect(leadingStar.received.map((r) => r.envelope.type).sort()).toEqual(
      ['lic.claim.created', 'lic.license.x.y', 'reg.claim.created'].sort(),
    );
    expect(star.received[0]?.delivery).toEqual({ attempt: 1, redelivered: false });
  });

  it('when two consumer queues bind the same pattern, then each gets its own copy', async () => {
    const first = recorder();
    const second = recorder();
    await fixture.bus.subscribe({
      queue: fixture.queueName('copy-a'),
      patterns: ['reg.box.created'],
      handler: first.handler,
    });
    await fixture.bus.subscribe({
      queue: fixture.queueName('copy-b'),
      patterns: ['reg.box.created'],
      handler: second.handler,
    });
    const event = anEvent('reg.box.created', { boxId: 'box_1' });

    await fixture.bus.publish(event);

    await expectDeliveries(first.received, 1);
    await expectDeliveries(second.received, 1);
    expect(first.received[0]?.envelope).toEqual(event);
    expect(second.received[0]?.envelope).toEqual(event);
  });

  it('when two consumers share one queue, then they compete and each message is handled once', async () => {
    const queue = fixture.queueName('competing');
    const byFirst: string[] = [];
    const bySecond: string[] = [];
    const slow = (into: string[]) => async (envelope: EventEnvelope) => {
      into.push(envelope.id);
      await sleep(20);
    };
    await fixture.bus.subscribe({ queue, patterns: ['reg.#'], prefetch: 1, handler: slow(byFirst) });
    await fixture.bus.subscribe({ queue, patterns: ['reg.#'], prefetch: 1, handler: slow(bySecond) });
    const events = Array.from({ length: 8 }, () => anEvent('reg.box.created'));

    await Promise.all(events.map((event) => fixture.bus.publish(event)));

    await waitFor(() => byFirst.length + bySecond.length >= 8, { timeoutMs, what: '8 deliveries' });
    await sleep(150);
    expect([...byFirst, ...bySecond].sort()).toEqual(events.map((e) => e.id).sort());
    expect(byFirst.length).toBeGreaterThan(0);
    expect(bySecond.length).toBeGreaterThan(0);
  });

  it('when a handler fails twice, then the message is redelivered with the attempt counted and then acked', async () => {
    const queue = fixture.queueName('retry');
    const deliveries: DeliveryInfo[] = [];
    await fixture.bus.subscribe({
      queue,
      patterns: ['reg.box.created'],
      maxAttempts: 5,
      handler: async (_envelope, delivery) => {
        deliveries.push(delivery);
        if (delivery.attempt < 3) throw new Error(`transient failure ${delivery.attempt}`);
      },
    });

    await fixture.bus.publish(anEvent('reg.box.created'));

    await waitFor(() => deliveries.length >= 3, { timeoutMs, what: '3 deliveries' });
    await sleep(300);
    expect(deliveries).toEqual([
      { attempt: 1, redelivered: false },
      { attempt: 2, redelivered: true },
      { attempt: 3, redelivered: true },
    ]);
    expect(await fixture.readDeadLetters(queue)).toEqual([]);
  });

  it('when a handler fails every attempt, then the message lands in the dead-letter queue with the attempt count and reason', async () => {
    const queue = fixture.queueName('dead');
    let calls = 0;
    await fixture.bus.subscribe({
      queue,
      patterns: ['reg.box.created'],
      maxAttempts: 3,
      handler: async () => {
        calls += 1;
        throw new Error('box store unavailable');
      },
    });
    const event = anEvent('reg.box.created');

    await fixture.bus.publish(event);

    const letters = await waitFor(
      async () => {
        const read = await fixture.readDeadLetters(queue);
        return read.length > 0 ? read : undefined;
      },
      { timeoutMs, what: 'a dead letter' },
    );
    expect(letters).toHaveLength(1);
    expect(letters[0]?.envelope?.id).toBe(event.id);
    expect(letters[0]?.attempts).toBe(3);
    expect(letters[0]?.reason).toContain('box store unavailable');
    await sleep(200);
    expect(calls).toBe(3);
  });

  it('when a message is not a valid envelope, then it goes straight to the dead-letter queue without reaching the handler', async () => {
    const queue = fixture.queueName('poison');
    let calls = 0;
    await fixture.bus.subscribe({
      queue,
      patterns: ['reg.#'],
      handler: async () => {
        calls += 1;
      },
    });
    const poison = { ...anEvent('reg.box.created'), id: 'not-an-event-id' };

    await fixture.bus.publish(poison);

    const letters = await waitFor(
      async () => {
        const read = await fixture.readDeadLetters(queue);
        return read.length > 0 ? read : undefined;
      },
      { timeoutMs, what: 'a dead letter' },
    );
    expect(letters[0]?.attempts).toBe(1);
    expect(letters[0]?.reason).toMatch(/poison/);
    expect(calls).toBe(0);
  });

  it(`when publish resolves, then the message is ${options.publishResolves === 'confirmed' ? 'confirmed (the handler may still be running)' : 'handled by every queue it was routed to'}`, async () => {
    const hold = gate();
    let started = false;
    let finished = 0;
    await fixture.bus.subscribe({
      queue: fixture.queueName('confirm'),
      patterns: ['reg.box.created'],
      handler: async () => {
        started = true;
        await hold.promise;
        finished += 1;
      },
    });

    let resolved = false;
    const publishing = fixture.bus.publish(anEvent('reg.box.created')).then(() => {
      resolved = true;
    });

    if (options.publishResolves === 'confirmed') {
      await publishing;
      expect(finished).toBe(0);
      hold.open();
    } else {
      await waitFor(() => started, { timeoutMs, what: 'the handler to start' });
      await sleep(100);
      expect(resolved).toBe(false);
      hold.open();
      await publishing;
      expect(finished).toBe(1);
    }
    await waitFor(() => finished === 1, { timeoutMs, what: 'the handler to finish' });
  });

  it('when messages are published to a declared queue before its consumer subscribes, then they are delivered once it does', async () => {
    const queue = fixture.queueName('early');
    await fixture.declareQueue(queue, ['reg.box.*']);
    const events = [anEvent('reg.box.created'), anEvent('reg.box.updated'), anEvent('reg.box.deleted')];
    const publishing = Promise.all(events.map((event) => fixture.bus.publish(event)));
    if (options.publishResolves === 'confirmed') await publishing;
    else await sleep(50);
    const late = recorder();

    await fixture.bus.subscribe({ queue, patterns: ['reg.box.*'], handler: late.handler });

    await publishing;
    await expectDeliveries(late.received, 3);
    expect(late.received.map((r) => r.envelope.id).sort()).toEqual(events.map((e) => e.id).sort());
  });

  it('when a consumer mutates its envelope, then the publisher and other consumers keep their own copy', async () => {
    const seen: unknown[] = [];
    await fixture.bus.subscribe({
      queue: fixture.queueName('mutator'),
      patterns: ['reg.box.created'],
      handler: async (envelope) => {
        (envelope.data.tags as string[]).push('mutated');
        envelope.data.name = 'changed';
      },
    });
    await fixture.bus.subscribe({
      queue: fixture.queueName('observer'),
      patterns: ['reg.box.created'],
      prefetch: 1,
      handler: async (envelope) => {
        await sleep(20);
        seen.push(structuredClone(envelope.data));
      },
    });
    const event = anEvent('reg.box.created', { name: 'original', tags: ['a'] });

    await fixture.bus.publish(event);

    await waitFor(() => seen.length === 1, { timeoutMs, what: 'the observer' });
    expect(seen[0]).toEqual({ name: 'original', tags: ['a'] });
    expect(event.data).toEqual({ name: 'original', tags: ['a'] });
  });

  it('when the bus closes while a handler runs, then close waits for the handler to finish', async () => {
    const hold = gate();
    let started = false;
    let finished = false;
    await fixture.bus.subscribe({
      queue: fixture.queueName('closing'),
      patterns: ['reg.box.created'],
      handler: async () => {
        started = true;
        await hold.promise;
        finished = true;
      },
    });
    const publishing = fixture.bus.publish(anEvent('reg.box.created'));
    await waitFor(() => started, { timeoutMs, what: 'the handler to start' });

    let closed = false;
    const closing = fixture.bus.close().then(() => {
      closed = true;
    });
    await sleep(150);
    expect(closed).toBe(false);
    expect(fixture.bus.isReady()).toBe(false);
    hold.open();
    await closing;

    expect(finished).toBe(true);
    await publishing;
  });
}
