import { batchesOf, DeliveryCache } from '../../src/domain/delivery-cache';
import type { Delivery, DeliveryStore, LeasedEndpoint, TransactionRunner } from '../../src/domain/ports';

// ADR 0036: the worker sends what the intake handed it; what it was not handed, or what has been
// attempted since, is read from the database; a batch never skips a delivery it cannot find.

function delivery(id: string, attemptCount = 0): Delivery {
  return {
    id,
    endpointId: 'whe_1',
    platformId: 'plat_1',
    eventId: `evt_${id}`,
    eventType: 'grace_period.reminder',
    payload: `{"id":"${id}","attempt":${attemptCount}}`,
    status: 'pending',
    test: false,
    manual: false,
    attemptCount,
    nextAttemptAt: new Date(0),
    lastResponseStatus: null,
    lastError: null,
    eventCreatedAt: new Date(0),
    createdAt: new Date(0),
    traceContext: null,
  };
}

function leased(refs: Array<[string, number]>): LeasedEndpoint {
  return {
    endpoint: {
      id: 'whe_1',
      platformId: 'plat_1',
      url: 'http://127.0.0.1/hooks',
      secret: 'whsec_x',
      previousSecret: null,
      previousSecretExpiresAt: null,
    },
    leaseToken: 7,
    due: refs.map(([id, attemptCount]) => ({ id, attemptCount, manual: false })),
  };
}

/** A store that has `stored` and records what it was asked to read. */
function storeOf(stored: Delivery[]) {
  const asked: string[][] = [];
  const deliveries = {
    findMany: async (_q: unknown, ids: string[]) => {
      asked.push(ids);
      return stored.filter((d) => ids.includes(d.id));
    },
  } as unknown as DeliveryStore;
  return { ctx: { db: {} as TransactionRunner, deliveries }, asked };
}

describe('the deliveries the intake handed to the worker', () => {
  it('when every due delivery was handed over, then the batch is made without reading the database', async () => {
    const cache = new DeliveryCache();
    cache.remember([delivery('del_1'), delivery('del_2')]);
    const { ctx, asked } = storeOf([]);

    const [batch] = await batchesOf(ctx, cache, [
      leased([
        ['del_1', 0],
        ['del_2', 0],
      ]),
    ]);

    expect(batch?.due.map((d) => d.payload)).toEqual([
      '{"id":"del_1","attempt":0}',
      '{"id":"del_2","attempt":0}',
    ]);
    expect(batch?.leaseToken).toBe(7);
    expect(asked).toEqual([]);
    expect(cache.size).toBe(0);
  });

  it('when a delivery was not handed over or has been attempted since, then it is read, and the order is the lease statement’s', async () => {
    const cache = new DeliveryCache();
    cache.remember([delivery('del_1'), delivery('del_3')]);
    const { ctx, asked } = storeOf([delivery('del_1', 1), delivery('del_2')]);

    const [batch] = await batchesOf(ctx, cache, [
      leased([
        ['del_1', 1],
        ['del_2', 0],
        ['del_3', 0],
      ]),
    ]);

    expect(batch?.due.map((d) => [d.id, d.attemptCount])).toEqual([
      ['del_1', 1],
      ['del_2', 0],
      ['del_3', 0],
    ]);
    expect(asked).toEqual([['del_1', 'del_2']]);
  });

  it('when a due delivery can no longer be found, then the batch stops before it', async () => {
    const cache = new DeliveryCache();
    cache.remember([delivery('del_1'), delivery('del_3')]);
    const { ctx } = storeOf([]);

    const [batch] = await batchesOf(ctx, cache, [
      leased([
        ['del_1', 0],
        ['del_2', 0],
        ['del_3', 0],
      ]),
    ]);

    expect(batch?.due.map((d) => d.id)).toEqual(['del_1']);
  });

  it('when more are handed over than it keeps, then the oldest are forgotten', () => {
    const cache = new DeliveryCache(2);
    cache.remember([delivery('del_1'), delivery('del_2'), delivery('del_3')]);

    expect(cache.size).toBe(2);
    expect(cache.take('del_1')).toBeUndefined();
    expect(cache.take('del_3')?.id).toBe('del_3');
  });
});
