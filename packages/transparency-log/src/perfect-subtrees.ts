import { EMPTY_ROOT, nodeHash, splitPoint, type Hash } from '@svc/merkle-log';

// A range of leaves as the perfect, aligned subtrees whose hashes the log stores, and their assembly into one root.

/** A perfect, aligned subtree: leaves [idx·2^level, (idx+1)·2^level). Level 0 is a leaf. */
export interface Perfect {
  level: number;
  idx: number;
}

export const keyOf = (p: Perfect): string => `${p.level}:${p.idx}`;

function log2(n: number): number {
  let level = 0;
  while (2 ** level < n) level += 1;
  return level;
}

/**
 * The perfect aligned subtrees the MTH of leaves [start, end) is made of, by RFC 9162's own
 * recursion (split at the largest power of two below the size), so that the hash assembled from
 * them is the MTH itself.
 */
export function perfectParts(start: number, end: number, out: Perfect[]): void {
  const n = end - start;
  if (n <= 0) return;
  if ((n & (n - 1)) === 0 && start % n === 0) {
    out.push({ level: log2(n), idx: start / n });
    return;
  }
  const k = splitPoint(n);
  perfectParts(start, start + k, out);
  perfectParts(start + k, end, out);
}

export function assemble(start: number, end: number, known: Map<string, Hash>): Hash {
  const n = end - start;
  if (n === 0) return EMPTY_ROOT;
  if ((n & (n - 1)) === 0 && start % n === 0) {
    const hash = known.get(keyOf({ level: log2(n), idx: start / n }));
    if (hash === undefined) throw new Error(`the log has no subtree [${start}, ${end})`);
    return hash;
  }
  const k = splitPoint(n);
  return nodeHash(assemble(start, start + k, known), assemble(start + k, end, known));
}
