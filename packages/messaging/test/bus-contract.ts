import type { EventEnvelope } from '@svc/contracts/common';
import { idempotentHandler, messagingMigrations, type DeliveryInfo, type MessageBus } from '@svc/messaging';
import { createDatabase, runMigrations } from '@svc/storage';
import { sleep, waitFor } from '@svc/test-kit';
import { anEvent, databaseDown, gate } from './event-builder';

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
  /** What the bus logged (JSON lines as objects). */
  logged: Array<Record<string, unknown>>;
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

  describe('transient failures and dead letters', () => {
    it('when a handler fails transiently 25 times (database down) and then succeeds, then it is applied once and nothing is dead-lettered', async () => {
      const queue = fixture.queueName('outage');
      let failuresLeft = 25;
      let applied = 0;
      await fixture.bus.subscribe({
        queue,
        patterns: ['reg.box.created'],
        maxAttempts: 3,
        handler: async () => {
          if (failuresLeft > 0) {
            failuresLeft -= 1;
            throw databaseDown();
          }
          applied += 1;
        },
      });
      const publishing = fixture.bus.publish(anEvent('reg.box.created'));
      if (options.publishResolves === 'confirmed') await publishing;

      await waitFor(() => applied >= 1, { timeoutMs: timeoutMs * 2, what: 'the event to be applied' });
      await publishing;
      await sleep(300);

      expect(applied).toBe(1);
      expect(failuresLeft).toBe(0);
      expect(await fixture.bus.deadLetterCount(queue)).toBe(0);
      expect(fixture.bus.consumerStats(queue)).toMatchObject({ transientRetries: 25, deadLettered: 0 });
    });

    it('when transient failures come between real ones, then only the real ones count toward the limit', async () => {
      const queue = fixture.queueName('mixed');
      const script = ['bug', 'down', 'down', 'down', 'bug', 'down', 'down', 'ok'];
      const seen: number[] = [];
      await fixture.bus.subscribe({
        queue,
        patterns: ['reg.box.created'],
        maxAttempts: 3,
        handler: async (_envelope, delivery) => {
          seen.push(delivery.attempt);
          const step = script.shift();
          if (step === 'bug') throw new Error('not yet');
          if (step === 'down') throw databaseDown();
        },
      });

      void fixture.bus.publish(anEvent('reg.box.created')).catch(() => undefined);

      await waitFor(() => script.length === 0, { timeoutMs, what: 'the whole script' });
      await sleep(300);
      expect(seen).toEqual([1, 2, 3, 4, 5, 6, 7, 8]);
      expect(await fixture.bus.deadLetterCount(queue)).toBe(0);
    });

    it('when one queue cannot reach its database, then another queue bound to the same events keeps flowing', async () => {
      const stuck = fixture.queueName('stuck');
      const flowing = fixture.queueName('flowing');
      let down = true;
      let stuckApplied = 0;
      const flowed: string[] = [];
      await fixture.bus.subscribe({
        queue: stuck,
        patterns: ['reg.box.created'],
        handler: async () => {
          if (down) throw databaseDown();
          stuckApplied += 1;
        },
      });
      await fixture.bus.subscribe({
        queue: flowing,
        patterns: ['reg.box.created'],
        handler: async (envelope) => void flowed.push(envelope.id),
      });
      const events = Array.from({ length: 5 }, () => anEvent('reg.box.created'));

      const publishing = Promise.all(events.map((event) => fixture.bus.publish(event)));
      if (options.publishResolves === 'confirmed') await publishing;

      await waitFor(() => flowed.length === 5, { timeoutMs, what: 'the healthy queue to take every event' });
      expect(stuckApplied).toBe(0);
      down = false;
      await waitFor(() => stuckApplied === 5, { timeoutMs, what: 'the stuck queue to recover' });
      await publishing;
      expect(await fixture.bus.deadLetterCount(stuck)).toBe(0);
    });

    it('when a message fails for a non-transient reason, then it is dead-lettered after bounded attempts, counted, listed with its reason and logged', async () => {
      const queue = fixture.queueName('poisoned');
      let calls = 0;
      await fixture.bus.subscribe({
        queue,
        patterns: ['reg.box.created'],
        maxAttempts: 3,
        handler: async () => {
          calls += 1;
          throw new TypeError("Cannot read properties of undefined (reading 'tier')");
        },
      });
      const event = anEvent('reg.box.created');

      await fixture.bus.publish(event);

      await waitFor(async () => (await fixture.bus.deadLetterCount(queue)) === 1, {
        timeoutMs,
        what: 'one dead letter',
      });
      await sleep(200);
      expect(calls).toBe(3);
      const listed = await fixture.bus.listDeadLetters(queue);
      expect(listed).toEqual([
        {
          queue,
          eventId: event.id,
          type: 'reg.box.created',
          attempts: 3,
          reason: expect.stringContaining("reading 'tier'") as unknown as string,
          deadLetteredAt: expect.any(String) as unknown as string,
        },
      ]);
      // Listing leaves them in place, counted again as soon as it returns (every time: CI once saw 0).
      for (let round = 0; round < 20; round += 1) {
        await fixture.bus.listDeadLetters(queue);
        expect(await fixture.bus.deadLetterCount(queue)).toBe(1);
      }
      expect(fixture.bus.consumerStats(queue)).toMatchObject({ failedRetries: 2, deadLettered: 1 });
      const line = fixture.logged.find((l) => l.msg === 'message dead-lettered');
      expect(line).toMatchObject({ queue, attempts: 3 });
      expect(String(line?.reason)).toContain("reading 'tier'");
    });

    it('when dead letters are replayed after the fix, then each is applied once, only by its own queue, and a duplicate stays a no-op', async () => {
      const db = await createDatabase({ url: 'pglite://memory' });
      try {
        await runMigrations(db, [messagingMigrations]);
        await db.exec('CREATE TABLE applied (event_id text NOT NULL)');
        const queue = fixture.queueName('replayed');
        const other = fixture.queueName('bystander');
        let fixed = false;
        const bystander: string[] = [];
        await fixture.bus.subscribe({
          queue,
          patterns: ['reg.box.created'],
          maxAttempts: 2,
          handler: idempotentHandler({
            db,
            consumer: queue,
            handle: async (tx, envelope) => {
              await tx.query('INSERT INTO applied (event_id) VALUES ($1)', [envelope.id]);
              if (!fixed) throw new RangeError('tier GOLD is unknown to this version');
            },
          }),
        });
        await fixture.bus.subscribe({
          queue: other,
          patterns: ['reg.box.created'],
          handler: async (envelope) => void bystander.push(envelope.id),
        });
        const events = [anEvent('reg.box.created'), anEvent('reg.box.created')];
        for (const event of events) await fixture.bus.publish(event);
        await waitFor(async () => (await fixture.bus.deadLetterCount(queue)) === 2, {
          timeoutMs,
          what: 'two dead letters',
        });
        await waitFor(() => bystander.length === 2, { timeoutMs, what: 'the bystander' });

        fixed = true;
        const replayed = await fixture.bus.replayDeadLetters(queue);

        expect(replayed).toBe(2);
        const count = async () =>
          (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM applied')).rows[0]?.n;
        await waitFor(async () => (await count()) === 2, { timeoutMs, what: 'both applied' });
        expect(bystander.length).toBe(2);
        expect(await fixture.bus.replayDeadLetters(queue)).toBe(0);
        // The same event once more (a relay that published twice): the inbox absorbs it.
        const duplicate = events[0];
        if (duplicate !== undefined) await fixture.bus.publish(duplicate);
        await sleep(300);
        const { rows } = await db.query<{ event_id: string }>(
          'SELECT event_id FROM applied ORDER BY event_id',
        );
        expect(rows.map((r) => r.event_id)).toEqual(events.map((e) => e.id).sort());
        expect(await fixture.bus.deadLetterCount(queue)).toBe(0);
        expect(bystander.length).toBe(3);
      } finally {
        await fixture.bus.close();
        await db.close();
      }
    }, 30_000);
  });
}
