/**
 * The index's storage: growable typed arrays and byte arenas, so that millions of names live off
 * the garbage-collected heap (ADR 0007). Everything is append-only: a replaced or removed name
 * stays as garbage until the index is rebuilt, which keeps every structure a few flat arrays that
 * a snapshot writes and reads back as they are.
 */

/**
 * Memory a snapshot reader allocated for one section alone, with room to grow past the values it
 * holds: a table built on a view of it may keep writing after the view's end.
 */
const OWNED = new WeakSet<ArrayBufferLike>();

/** Marks memory as owned by the section read into it (see OWNED). */
export function markOwned(buffer: ArrayBufferLike): void {
  OWNED.add(buffer);
}

function roomOf(view: ArrayBufferView): number {
  return OWNED.has(view.buffer) && view.byteOffset === 0 ? view.buffer.byteLength : view.byteLength;
}

/** A Uint32Array that grows by doubling. */
export class GrowableUint32 {
  data: Uint32Array;
  length: number;

  /** With `data`, starts with its values (and, for owned memory, its spare room). */
  constructor(capacity = 1024, data?: Uint32Array) {
    this.data = data
      ? new Uint32Array(data.buffer, data.byteOffset, roomOf(data) / 4)
      : new Uint32Array(capacity);
    this.length = data ? data.length : 0;
  }

  push(value: number): number {
    if (this.length === this.data.length) this.reserve(this.length + 1);
    this.data[this.length] = value;
    return this.length++;
  }

  get(index: number): number {
    return this.data[index] ?? 0;
  }

  set(index: number, value: number): void {
    this.data[index] = value;
  }

  /** Makes room for `size` values without moving the length. */
  reserve(size: number): void {
    if (size <= this.data.length) return;
    let capacity = Math.max(1024, this.data.length);
    while (capacity < size) capacity *= 2;
    const next = new Uint32Array(capacity);
    next.set(this.data.subarray(0, this.length));
    this.data = next;
  }

  /** The values in use (a view, not a copy). */
  used(): Uint32Array {
    return this.data.subarray(0, this.length);
  }
}

/** Strings stored end to end in one growing Buffer (UTF-8), addressed by offset and length. */
export class ByteArena {
  buffer: Buffer;
  length: number;

  constructor(capacity = 64 * 1024, buffer?: Buffer) {
    this.buffer = buffer
      ? Buffer.from(buffer.buffer, buffer.byteOffset, roomOf(buffer))
      : Buffer.allocUnsafe(capacity);
    this.length = buffer ? buffer.length : 0;
  }

  /** Appends a string; returns its offset and byte length. */
  append(value: string): { offset: number; bytes: number } {
    const bytes = Buffer.byteLength(value, 'utf8');
    if (this.length + bytes > this.buffer.length) {
      let capacity = Math.max(64 * 1024, this.buffer.length);
      while (capacity < this.length + bytes) capacity *= 2;
      const next = Buffer.allocUnsafe(capacity);
      this.buffer.copy(next, 0, 0, this.length);
      this.buffer = next;
    }
    const offset = this.length;
    this.buffer.write(value, offset, bytes, 'utf8');
    this.length += bytes;
    return { offset, bytes };
  }

  read(offset: number, bytes: number): string {
    return this.buffer.toString('utf8', offset, offset + bytes);
  }

  used(): Buffer {
    return this.buffer.subarray(0, this.length);
  }
}

/** FNV-1a over UTF-16 code units: the 32-bit hash every table here uses. */
export function hash32(value: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < value.length; i++) {
    h ^= value.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

/** Spreads an integer key over the buckets (murmur3's finaliser). */
function mix(key: number): number {
  let h = key ^ (key >>> 16);
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

function bucketsFor(count: number): number {
  let size = 1024;
  while (size < count) size *= 2;
  return size;
}

/**
 * Distinct strings, each given the next number (0, 1, 2...) for good: a dictionary of tokens or
 * of ids. Open addressing over an Int32Array; the strings sit in a ByteArena.
 */
export class StringTable {
  private slots: Int32Array;
  readonly arena: ByteArena;
  readonly offsets: GrowableUint32;
  readonly lengths: GrowableUint32;
  readonly hashes: GrowableUint32;

  /** From a snapshot's arrays; with `slots`, the table is taken as it was instead of placed again. */
  constructor(parts?: {
    arena: Buffer;
    offsets: Uint32Array;
    lengths: Uint32Array;
    hashes: Uint32Array;
    slots?: Uint32Array | undefined;
  }) {
    this.arena = new ByteArena(64 * 1024, parts?.arena);
    this.offsets = new GrowableUint32(1024, parts?.offsets);
    this.lengths = new GrowableUint32(1024, parts?.lengths);
    this.hashes = new GrowableUint32(1024, parts?.hashes);
    const slots = parts?.slots;
    if (slots && slots.length >= this.size * 2 && (slots.length & (slots.length - 1)) === 0) {
      this.slots = new Int32Array(slots.buffer, slots.byteOffset, slots.length);
    } else {
      this.slots = new Int32Array(bucketsFor(this.size * 2)).fill(-1);
      for (let id = 0; id < this.size; id++) this.place(id);
    }
  }

  /** The open-addressing slots, copied (they change in place): a snapshot stores them. */
  slotsCopy(): Uint32Array {
    return new Uint32Array(
      this.slots.buffer.slice(this.slots.byteOffset, this.slots.byteOffset + this.slots.byteLength),
    );
  }

  get size(): number {
    return this.offsets.length;
  }

  /** The string's number, or -1. */
  get(value: string): number {
    const h = hash32(value);
    const mask = this.slots.length - 1;
    for (let at = mix(h) & mask; ; at = (at + 1) & mask) {
      const id = this.slots[at] ?? -1;
      if (id < 0) return -1;
      if (this.hashes.get(id) === h && this.text(id) === value) return id;
    }
  }

  /** The string's number, given one when it is new. */
  intern(value: string): number {
    const known = this.get(value);
    if (known >= 0) return known;
    const { offset, bytes } = this.arena.append(value);
    const id = this.offsets.push(offset);
    this.lengths.push(bytes);
    this.hashes.push(hash32(value));
    if (this.size * 2 > this.slots.length) this.rehash();
    else this.place(id);
    return id;
  }

  text(id: number): string {
    return this.arena.read(this.offsets.get(id), this.lengths.get(id));
  }

  private place(id: number): void {
    const mask = this.slots.length - 1;
    let at = mix(this.hashes.get(id)) & mask;
    while ((this.slots[at] ?? -1) >= 0) at = (at + 1) & mask;
    this.slots[at] = id;
  }

  private rehash(): void {
    this.slots = new Int32Array(this.slots.length * 2).fill(-1);
    for (let id = 0; id < this.size; id++) this.place(id);
  }
}

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

/** Snapshot parts by name: typed arrays and buffers of the tables below, as a snapshot stored them. */
export type SnapshotParts = Record<string, Uint32Array | Buffer>;

/**
 * Reads the tables of a snapshot's parts (each absent or of the wrong kind reads as `undefined`, so
 * the table starts empty): one reader for every structure that is saved in a snapshot.
 */
export function snapshotReader(parts: SnapshotParts | undefined) {
  const u32 = (name: string): Uint32Array | undefined => {
    const part = parts?.[name];
    return part instanceof Uint32Array ? part : undefined;
  };
  const buf = (name: string): Buffer | undefined => {
    const part = parts?.[name];
    return Buffer.isBuffer(part) ? part : undefined;
  };
  const table = (prefix: string): StringTable => {
    const arena = buf(`${prefix}.arena`);
    const offsets = u32(`${prefix}.offsets`);
    const lengths = u32(`${prefix}.lengths`);
    const hashes = u32(`${prefix}.hashes`);
    const slots = u32(`${prefix}.slots`);
    return new StringTable(
      arena && offsets && lengths && hashes ? { arena, offsets, lengths, hashes, slots } : undefined,
    );
  };
  const multi = (prefix: string): IntMultiMap => {
    const keys = u32(`${prefix}.keys`);
    const values = u32(`${prefix}.values`);
    return new IntMultiMap(
      keys && values
        ? {
            keys,
            values,
            next: u32(`${prefix}.next`),
            heads: u32(`${prefix}.heads`),
            bucketStart: u32(`${prefix}.bucketStart`),
            packedKeys: u32(`${prefix}.packedKeys`),
            packedValues: u32(`${prefix}.packedValues`),
          }
        : undefined,
    );
  };
  return { u32, buf, table, multi };
}
