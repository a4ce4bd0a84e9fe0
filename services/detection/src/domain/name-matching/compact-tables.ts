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

/**
 * Many values per 32-bit key (a hash of a string, or a dense id), as chains of nodes in typed
 * arrays: add is O(1), a lookup walks one chain. Values are never removed (callers skip dead ones).
 */
export class IntMultiMap {
  private heads: Int32Array;
  readonly keys: GrowableUint32;
  readonly values: GrowableUint32;
  readonly next: GrowableUint32;

  /**
   * From a snapshot's arrays: with `next` and `heads` the chains are taken as they were (no pass
   * over millions of nodes on start); without them they are linked again.
   */
  constructor(parts?: {
    keys: Uint32Array;
    values: Uint32Array;
    next?: Uint32Array | undefined;
    heads?: Uint32Array | undefined;
  }) {
    this.keys = new GrowableUint32(1024, parts?.keys);
    this.values = new GrowableUint32(1024, parts?.values);
    const { next, heads } = parts ?? {};
    if (
      next &&
      heads &&
      next.length === this.size &&
      heads.length >= this.size &&
      (heads.length & (heads.length - 1)) === 0
    ) {
      this.next = new GrowableUint32(1024, next);
      this.heads = new Int32Array(heads.buffer, heads.byteOffset, heads.length);
      return;
    }
    this.next = new GrowableUint32(1024, parts ? new Uint32Array(parts.keys.length) : undefined);
    this.heads = new Int32Array(bucketsFor(this.size)).fill(-1);
    if (parts) this.relink();
  }

  /**
   * The chains for a snapshot: `next` as a view (a node's link is written once, when it is added;
   * a resize links into new arrays) and `heads` copied (they change in place on every add).
   */
  chains(): { next: Uint32Array; heads: Uint32Array } {
    const heads = new Uint32Array(this.heads.length);
    heads.set(new Uint32Array(this.heads.buffer, this.heads.byteOffset, this.heads.length));
    return { next: this.next.used(), heads };
  }

  get size(): number {
    return this.keys.length;
  }

  add(key: number, value: number): void {
    const node = this.keys.push(key);
    this.values.push(value);
    this.next.push(0);
    if (this.size > this.heads.length) {
      this.heads = new Int32Array(this.heads.length * 2).fill(-1);
      this.relink();
    } else this.link(node);
  }

  /** Calls `visit` with every value stored under the key (newest first). */
  forEach(key: number, visit: (value: number) => void): void {
    let node = this.heads[mix(key) & (this.heads.length - 1)] ?? -1;
    const keys = this.keys.data;
    const next = this.next.data;
    const values = this.values.data;
    while (node >= 0) {
      if (keys[node] === key) visit(values[node] ?? 0);
      node = (next[node] ?? 0) - 1;
    }
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
    for (let node = 0, size = this.size; node < size; node++) {
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
    const next = u32(`${prefix}.next`);
    const heads = u32(`${prefix}.heads`);
    return new IntMultiMap(keys && values ? { keys, values, next, heads } : undefined);
  };
  return { u32, buf, table, multi };
}
