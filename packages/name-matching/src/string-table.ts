import { GrowableUint32, ByteArena } from './growable-storage';

// The hashing every compact table uses, and the table of distinct strings by id.

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
export function mix(key: number): number {
  let h = key ^ (key >>> 16);
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  return (h ^ (h >>> 16)) >>> 0;
}

export function bucketsFor(count: number): number {
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
