import { createHash } from 'node:crypto';

// RFC 9162 (Certificate Transparency 2.0) §2.1: the Merkle Tree Hash of a list of entries, the
// audit path that proves one entry is in a tree, the consistency proof that a tree is a prefix of a
// larger one, and how a verifier checks each with nothing but the hashes. SHA-256 throughout; a
// leaf is hashed with the prefix 0x00 and an interior node with 0x01, so that no leaf can pass for
// a node (second-preimage resistance).

/** A hash: 32 bytes of SHA-256. */
export type Hash = Buffer;

const LEAF_PREFIX = Buffer.from([0x00]);
const NODE_PREFIX = Buffer.from([0x01]);

/** MTH of the empty list: SHA-256 of nothing. */
export const EMPTY_ROOT: Hash = createHash('sha256').digest();

/** MTH({d}) = SHA-256(0x00 || d). */
export function leafHash(entry: Uint8Array): Hash {
  return createHash('sha256').update(LEAF_PREFIX).update(entry).digest();
}

/** SHA-256(0x01 || left || right). */
export function nodeHash(left: Hash, right: Hash): Hash {
  return createHash('sha256').update(NODE_PREFIX).update(left).update(right).digest();
}

/** The largest power of two smaller than n (n > 1): where RFC 9162 splits a tree of n leaves. */
export function splitPoint(n: number): number {
  let k = 1;
  while (k * 2 < n) k *= 2;
  return k;
}

/**
 * The Merkle Tree Hash of the leaves [start, end) of a log. Implementations answer it from the leaf
 * hashes (`treeOf`) or from stored subtree hashes; every proof below is built from it alone.
 */
export type SubtreeHash = (start: number, end: number) => Hash;

/** MTH over an array of leaf hashes, by the RFC's recursion. */
export function rootOf(leafHashes: readonly Hash[]): Hash {
  return subtreeOf(leafHashes)(0, leafHashes.length);
}

/** The SubtreeHash of an array of leaf hashes (recursion; subtrees of a power-of-two size are cached). */
export function subtreeOf(leafHashes: readonly Hash[]): SubtreeHash {
  const cache = new Map<string, Hash>();
  const mth: SubtreeHash = (start, end) => {
    const n = end - start;
    if (n === 0) return EMPTY_ROOT;
    if (n === 1) {
      const leaf = leafHashes[start];
      if (leaf === undefined) throw new RangeError(`no leaf ${start}`);
      return leaf;
    }
    const key = `${start}:${end}`;
    const known = cache.get(key);
    if (known !== undefined) return known;
    const k = splitPoint(n);
    const hash = nodeHash(mth(start, start + k), mth(start + k, end));
    // Perfect subtrees never change as the log grows: worth keeping.
    if ((n & (n - 1)) === 0) cache.set(key, hash);
    return hash;
  };
  return mth;
}

function checkSize(name: string, value: number): void {
  if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`${name} must be a whole number ≥ 0`);
}

/** PATH(m, D[n]) (RFC 9162 §2.1.3.1): the audit path of leaf `index` in the tree of the first `size` leaves. */
export function inclusionProof(index: number, size: number, mth: SubtreeHash): Hash[] {
  checkSize('index', index);
  checkSize('size', size);
  if (index >= size) throw new RangeError(`leaf ${index} is not in a tree of ${size}`);
  const path: Hash[] = [];
  let start = 0;
  let end = size;
  let m = index;
  // Walks down from the root; the siblings are collected root first, then reversed (leaf first).
  while (end - start > 1) {
    const k = splitPoint(end - start);
    if (m < k) {
      path.push(mth(start + k, end));
      end = start + k;
    } else {
      path.push(mth(start, start + k));
      start += k;
      m -= k;
    }
  }
  return path.reverse();
}

/**
 * PROOF(m, D[n]) (RFC 9162 §2.1.4.1): the consistency proof that the tree of the first `first`
 * leaves is a prefix of the tree of the first `second`.
 */
export function consistencyProof(first: number, second: number, mth: SubtreeHash): Hash[] {
  checkSize('first', first);
  checkSize('second', second);
  if (first > second) throw new RangeError(`a tree of ${first} is no prefix of one of ${second}`);
  if (first === 0 || first === second) return [];
  const proof: Hash[] = [];
  let start = 0;
  let end = second;
  let m = first;
  let whole = true;
  // SUBPROOF(m, D[start:end], whole), iteratively: the hashes come root first, then reversed.
  while (m !== end - start) {
    const k = splitPoint(end - start);
    if (m <= k) {
      proof.push(mth(start + k, end));
      end = start + k;
    } else {
      proof.push(mth(start, start + k));
      start += k;
      m -= k;
      whole = false;
    }
  }
  if (!whole) proof.push(mth(start, end));
  return proof.reverse();
}

const sameHash = (a: Uint8Array, b: Uint8Array): boolean =>
  Buffer.compare(Buffer.from(a), Buffer.from(b)) === 0;

/** The root an audit path leads to from a leaf (RFC 9162 §2.1.3.2), or null when the path cannot be one. */
export function rootFromInclusionProof(
  index: number,
  size: number,
  leaf: Hash,
  proof: readonly Hash[],
): Hash | null {
  if (!Number.isSafeInteger(index) || !Number.isSafeInteger(size) || index < 0 || index >= size) return null;
  let fn = index;
  let sn = size - 1;
  let r = leaf;
  for (const p of proof) {
    if (sn === 0) return null;
    if (fn % 2 === 1 || fn === sn) {
      r = nodeHash(p, r);
      // fn === sn with fn even: up to where this node is a right child, or the top.
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      r = nodeHash(r, p);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 ? r : null;
}

/** True when `proof` shows leaf `index` (hash `leaf`) in the tree of `size` leaves with root `root`. */
export function verifyInclusion(
  index: number,
  size: number,
  leaf: Hash,
  proof: readonly Hash[],
  root: Hash,
): boolean {
  const computed = rootFromInclusionProof(index, size, leaf, proof);
  return computed !== null && sameHash(computed, root);
}

/**
 * True when `proof` shows the tree of `first` leaves (root `firstRoot`) to be a prefix of the tree
 * of `second` leaves (root `secondRoot`) (RFC 9162 §2.1.4.2). Equal sizes need an empty proof and
 * equal roots; the empty tree is a prefix of every tree.
 */
export function verifyConsistency(
  first: number,
  second: number,
  proof: readonly Hash[],
  firstRoot: Hash,
  secondRoot: Hash,
): boolean {
  if (!Number.isSafeInteger(first) || !Number.isSafeInteger(second) || first < 0 || first > second) {
    return false;
  }
  if (first === 0) return proof.length === 0;
  if (first === second) return proof.length === 0 && sameHash(firstRoot, secondRoot);
  if (proof.length === 0) return false;
  const path = (first & (first - 1)) === 0 ? [firstRoot, ...proof] : [...proof];
  let fn = first - 1;
  let sn = second - 1;
  while (fn % 2 === 1) {
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  const [head, ...rest] = path;
  if (head === undefined) return false;
  let fr = head;
  let sr = head;
  for (const c of rest) {
    if (sn === 0) return false;
    if (fn % 2 === 1 || fn === sn) {
      fr = nodeHash(c, fr);
      sr = nodeHash(c, sr);
      while (fn % 2 === 0 && fn !== 0) {
        fn = Math.floor(fn / 2);
        sn = Math.floor(sn / 2);
      }
    } else {
      sr = nodeHash(sr, c);
    }
    fn = Math.floor(fn / 2);
    sn = Math.floor(sn / 2);
  }
  return sn === 0 && sameHash(fr, firstRoot) && sameHash(sr, secondRoot);
}
