import { GrowableUint32 } from './growable-storage';
import { mix, bucketsFor } from './string-table';

/** The arrays of one IntMultiMap, as a snapshot stores them (see IntMultiMap.parts). */
export interface IntMultiMapParts {
  keys: Uint32Array;
  values: Uint32Array;
  next?: Uint32Array | undefined;
  heads?: Uint32Array | undefined;
  /** The packed part: bucket b's pairs sit at [bucketStart[b], bucketStart[b + 1]). */
  bucketStart?: Uint32Array | undefined;
  packedKeys?: Uint32Array | undefined;
  packedValues?: Uint32Array | undefined;
}

/**
 * Many values per 32-bit key (a hash of a string, or a dense id). Two parts: a packed one, where
 * each bucket's pairs lie next to each other (compressed sparse rows: a lookup reads one short
 * run of memory), and the pairs added since it was packed, as chains of nodes in typed arrays (add
 * is O(1); a lookup walks one chain, a cache miss per node). `pack()` moves everything into the
 * packed part: done after a load, so that at millions of values a lookup is not a walk through
 * memory (ADR 0007). Values are never removed (callers skip dead ones).
 */
export class IntMultiMap {
  private heads: Int32Array;
  private keys: GrowableUint32;
  private values: GrowableUint32;
  private next: GrowableUint32;
  private bucketStart: Uint32Array;
  private packedKeys: Uint32Array;
  private packedValues: Uint32Array;

  /**
   * From a snapshot's arrays: the packed part as it was, and the chains as they were when `next`
   * and `heads` fit (no pass over millions of nodes on start); without them they are linked again.
   */
  constructor(parts?: IntMultiMapParts) {
    const { bucketStart, packedKeys, packedValues } = parts ?? {};
    if (
      bucketStart &&
      packedKeys &&
      packedValues &&
      packedKeys.length === packedValues.length &&
      bucketStart.length >= 2 &&
      ((bucketStart.length - 1) & (bucketStart.length - 2)) === 0 &&
      bucketStart[bucketStart.length - 1] === packedKeys.length
    ) {
      this.bucketStart = bucketStart;
      this.packedKeys = packedKeys;
      this.packedValues = packedValues;
    } else {
      this.bucketStart = new Uint32Array(2);
      this.packedKeys = new Uint32Array(0);
      this.packedValues = new Uint32Array(0);
    }
    this.keys = new GrowableUint32(1024, parts?.keys);
    this.values = new GrowableUint32(1024, parts?.values);
    const { next, heads } = parts ?? {};
    if (
      next &&
      heads &&
      next.length === this.chained &&
      heads.length >= this.chained &&
      (heads.length & (heads.length - 1)) === 0
    ) {
      this.next = new GrowableUint32(1024, next);
      this.heads = new Int32Array(heads.buffer, heads.byteOffset, heads.length);
      return;
    }
    this.next = new GrowableUint32(1024, parts ? new Uint32Array(parts.keys.length) : undefined);
    this.heads = new Int32Array(bucketsFor(this.chained)).fill(-1);
    if (parts) this.relink();
  }

  /** Pairs held, packed and chained. */
  get size(): number {
    return this.packedKeys.length + this.chained;
  }

  /** Pairs added since the last `pack()`, in chains. */
  get chained(): number {
    return this.keys.length;
  }

  add(key: number, value: number): void {
    const node = this.keys.push(key);
    this.values.push(value);
    this.next.push(0);
    if (this.chained > this.heads.length) {
      this.heads = new Int32Array(this.heads.length * 2).fill(-1);
      this.relink();
    } else this.link(node);
  }

  /** Calls `visit` with every value stored under the key (newest first). */
  forEach(key: number, visit: (value: number) => void): void {
    const mixed = mix(key);
    let node = this.heads[mixed & (this.heads.length - 1)] ?? -1;
    const keys = this.keys.data;
    const next = this.next.data;
    const values = this.values.data;
    while (node >= 0) {
      if (keys[node] === key) visit(values[node] ?? 0);
      node = (next[node] ?? 0) - 1;
    }
    const bucket = mixed & (this.bucketStart.length - 2);
    const packedKeys = this.packedKeys;
    const packedValues = this.packedValues;
    for (let at = this.bucketStart[bucket] ?? 0, end = this.bucketStart[bucket + 1] ?? 0; at < end; at++) {
      if (packedKeys[at] === key) visit(packedValues[at] ?? 0);
    }
  }

  /**
   * Moves every pair into the packed part (newest first within a key, as the chains keep them)
   * and starts the chains afresh. The old arrays are left as they were, so a snapshot being
   * written from them stays whole.
   */
  pack(): void {
    const chained = this.chained;
    const total = this.packedKeys.length + chained;
    const buckets = bucketsFor(Math.max(1, total));
    const mask = buckets - 1;
    const start = new Uint32Array(buckets + 1);
    const keys = this.keys.data;
    const values = this.values.data;
    const count = (key: number): void => {
      const bucket = (mix(key) & mask) + 1;
      start[bucket] = (start[bucket] ?? 0) + 1;
    };
    for (let node = 0; node < chained; node++) count(keys[node] ?? 0);
    for (let at = 0; at < this.packedKeys.length; at++) count(this.packedKeys[at] ?? 0);
    for (let b = 0; b < buckets; b++) start[b + 1] = (start[b + 1] ?? 0) + (start[b] ?? 0);
    const cursor = start.slice(0, buckets);
    const packedKeys = new Uint32Array(total);
    const packedValues = new Uint32Array(total);
    const put = (key: number, value: number): void => {
      const bucket = mix(key) & mask;
      const at = cursor[bucket] ?? 0;
      cursor[bucket] = at + 1;
      packedKeys[at] = key;
      packedValues[at] = value;
    };
    // Newest first: the chained pairs from the last added, then the packed ones in their order.
    for (let node = chained - 1; node >= 0; node--) put(keys[node] ?? 0, values[node] ?? 0);
    for (let at = 0; at < this.packedKeys.length; at++)
      put(this.packedKeys[at] ?? 0, this.packedValues[at] ?? 0);
    this.bucketStart = start;
    this.packedKeys = packedKeys;
    this.packedValues = packedValues;
    this.keys = new GrowableUint32();
    this.values = new GrowableUint32();
    this.next = new GrowableUint32();
    this.heads = new Int32Array(bucketsFor(0)).fill(-1);
  }

  /**
   * The arrays for a snapshot: the packed ones as they are (never changed, only replaced), the
   * chains' `keys`, `values` and `next` as views (a node's link is written once, when it is
   * added; a resize links into new arrays) and `heads` copied (they change in place on every add).
   */
  parts(): Required<IntMultiMapParts> {
    const heads = new Uint32Array(this.heads.length);
    heads.set(new Uint32Array(this.heads.buffer, this.heads.byteOffset, this.heads.length));
    return {
      keys: this.keys.used(),
      values: this.values.used(),
      next: this.next.used(),
      heads,
      bucketStart: this.bucketStart,
      packedKeys: this.packedKeys,
      packedValues: this.packedValues,
    };
  }

  private link(node: number): void {
    const bucket = mix(this.keys.data[node] ?? 0) & (this.heads.length - 1);
    this.next.data[node] = (this.heads[bucket] ?? -1) + 1;
    this.heads[bucket] = node;
  }

  // Oldest node first, so that chains keep newest-first order after a resize or a load.
  private relink(): void {
    const heads = this.heads;
    const mask = heads.length - 1;
    const keys = this.keys.data;
    const next = this.next.data;
    for (let node = 0, size = this.chained; node < size; node++) {
      const bucket = mix(keys[node] ?? 0) & mask;
      next[node] = (heads[bucket] ?? -1) + 1;
      heads[bucket] = node;
    }
  }
}
