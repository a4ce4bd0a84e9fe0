import { deepStrictEqual } from 'node:assert/strict';
import { entityIdOf } from '@svc/contracts/catalogue';
import type { EventEnvelope } from '@svc/contracts/common';
import fc from 'fast-check';

// Property-based checks that a consumer ends in the same state whatever order and however many
// times its events arrive (ADR 0010): a history is applied once in order, and a renamed copy of
// it (every id suffixed, so both live side by side in one database) shuffled and duplicated.

const ID = /\b([a-z]+_[0-9A-Za-z]{16,})\b/g;

/** An order of delivery of `length` events: each at least once, some twice, shuffled. */
export function deliveryOrder(length: number): fc.Arbitrary<number[]> {
  const indices = Array.from({ length }, (_, i) => i);
  return fc.subarray(indices).chain((twice) =>
    fc.shuffledSubarray([...indices, ...twice], {
      minLength: length + twice.length,
      maxLength: length + twice.length,
    }),
  );
}

/** `value` with every id (`<prefix>_<16+ base62>`) replaced as `rename` says. */
export function renameIds<T>(value: T, rename: (id: string) => string): T {
  return JSON.parse(JSON.stringify(value).replace(ID, (id: string) => rename(id))) as T;
}

export interface OrderIndependenceCheck<S> {
  /** A history of events about fresh entities, in the order their owner wrote them. */
  history: fc.Arbitrary<EventEnvelope[]>;
  /** Delivers one event to the consumer under test (and waits until it is handled). */
  deliver(envelope: EventEnvelope): Promise<void>;
  /** The consumer's end state about the entities of `history`, as plain data (ids included). */
  state(history: EventEnvelope[]): Promise<S>;
  numRuns?: number;
}

/**
 * Runs the property: for each generated history and delivery order, the state after a shuffled,
 * duplicated delivery equals the state after delivery in order.
 */
export async function assertOrderIndependent<S>(check: OrderIndependenceCheck<S>): Promise<void> {
  let run = 0;
  await fc.assert(
    fc.asyncProperty(
      check.history.chain((history) => fc.tuple(fc.constant(history), deliveryOrder(history.length))),
      async ([original, order]) => {
        run += 1;
        // Fresh ids per run for both copies: runs share the database.
        const runTag = `R${run}x${Math.random().toString(36).slice(2, 8)}`;
        const inOrder = renameIds(original, (id) => `${id}${runTag}A`);
        const shuffled = renameIds(original, (id) => `${id}${runTag}B`);
        for (const envelope of inOrder) await check.deliver(envelope);
        for (const index of order) {
          const envelope = shuffled[index];
          if (envelope !== undefined) await check.deliver(envelope);
        }
        const expected = renameIds(await check.state(inOrder), (id) => id.replace(`${runTag}A`, ''));
        const actual = renameIds(await check.state(shuffled), (id) => id.replace(`${runTag}B`, ''));
        deepStrictEqual(actual, expected);
      },
    ),
    { numRuns: check.numRuns ?? 25 },
  );
}

/**
 * Stamps each event with its entity's next version, in list order, as the owner's outbox does
 * (ADR 0010); events of types that version no entity are left as they are.
 */
export function stampVersions(history: EventEnvelope[]): EventEnvelope[] {
  const versions = new Map<string, number>();
  return history.map((envelope) => {
    const id = entityIdOf(envelope);
    if (id === null) return envelope;
    const version = (versions.get(id) ?? 0) + 1;
    versions.set(id, version);
    return { ...envelope, entity: { id, version } };
  });
}
