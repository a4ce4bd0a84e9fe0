import type { EventEnvelope } from '@svc/contracts/common';
import { patternsOf } from '@svc/contracts/topology';
import type { Database, Queryable } from '@svc/ports';
import { ManualClock } from '@svc/clock';
import { projectionSubscription } from '../../src';

/** A database that answers only the inbox's insert: a new (consumer, event id) is inserted once. */
function inboxOnlyDatabase(): Database {
  const seen = new Set<string>();
  const q: Queryable = {
    query: async <R extends object>(text: string, params: unknown[] = []) => {
      if (!text.includes('processed_messages')) throw new Error(`unexpected statement: ${text}`);
      const key = `${String(params[0])}/${String(params[1])}`;
      const inserted = !seen.has(key);
      seen.add(key);
      const rows = (inserted ? [{ eventId: params[1] }] : []) as R[];
      return { rows, rowCount: rows.length };
    },
    exec: async () => undefined,
  };
  return {
    ...q,
    kind: 'pglite',
    transaction: (fn) => fn(q),
    ping: async () => undefined,
    close: async () => undefined,
  } as Database;
}

const envelope = (id: string): EventEnvelope => ({
  id,
  type: 'registry.box.created',
  version: 1,
  occurredAt: new Date(0).toISOString(),
  data: {},
});
const delivery = { attempt: 1, redelivered: false };

describe('projectionSubscription', () => {
  it('when a projection subscribes, then its patterns are the ones the topology gives its queue', () => {
    const subscription = projectionSubscription({
      queue: 'licensing.boxes',
      db: inboxOnlyDatabase(),
      clock: new ManualClock(new Date(0)),
      apply: async () => undefined,
    });
    expect(subscription.patterns).toEqual(patternsOf('licensing.boxes'));
  });

  it('when the queue is not in the topology, then it refuses to subscribe', () => {
    expect(() =>
      projectionSubscription({
        queue: 'licensing.everything',
        db: inboxOnlyDatabase(),
        clock: new ManualClock(new Date(0)),
        apply: async () => undefined,
      }),
    ).toThrow(/not in the system's event topology/);
  });

  it('when an event is delivered twice, then it is applied once, and afterCommit follows each delivery', async () => {
    const steps: string[] = [];
    const subscription = projectionSubscription({
      queue: 'licensing.boxes',
      db: inboxOnlyDatabase(),
      clock: new ManualClock(new Date(0)),
      apply: async (_tx, event) => {
        steps.push(`apply ${event.id}`);
      },
      afterCommit: () => {
        steps.push('after');
      },
    });
    await subscription.handler(envelope('evt_1'), delivery);
    await subscription.handler(envelope('evt_1'), { attempt: 2, redelivered: true });
    await subscription.handler(envelope('evt_2'), delivery);
    expect(steps).toEqual(['apply evt_1', 'after', 'after', 'apply evt_2', 'after']);
  });
});
