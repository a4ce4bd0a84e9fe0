/**
 * The face index's look-up tables, in typed arrays (no object per face or per owner): face id ->
 * slot, and owner key -> owner number. Both are open-addressing tables with linear probing and
 * backward-shift deletion (no tombstones, so churn never slows look-ups).
 */

/** Smallest power of two >= n (and >= 16). */
function powerOfTwo(n: number): number {
  let size = 16;
  while (size < n) size *= 2;
  return size;
}

function mixId(id: number): number {
  const lo = id >>> 0;
  const hi = (id / 4294967296) >>> 0;
  let h = Math.imul(lo ^ Math.imul(hi, 0x27d4eb2d), 0x9e3779b1);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  return h >>> 0;
}

function fnv1a(bytes: Uint8Array, from: number, length: number): number {
  let h = 0x811c9dc5;
  for (let i = from; i < from + length; i++) h = Math.imul(h ^ (bytes[i] ?? 0), 0x01000193);
  return h >>> 0;
}

/**
 * Removes the entry at `hole` of a linear-probing table and shifts later entries of the same run
 * back, so every entry stays reachable from its home bucket.
 */
function deleteAt(table: Uint32Array, hole: number, homeOf: (value: number) => number): void {
  const mask = table.length - 1;
  let j = hole;
  for (;;) {
    j = (j + 1) & mask;
    const value = table[j] ?? 0;
    if (value === 0) break;
    // The entry may move into the hole when the hole lies on its probe path (home .. j).
    if (((j - homeOf(value)) & mask) >= ((j - hole) & mask)) {
      table[hole] = value;
      hole = j;
    }
  }
  table[hole] = 0;
}

/** Face ids by slot (0: a free slot), and the slot of a face id. */
export class FaceIdTable {
  private ids: Float64Array;
  /** slot + 1 per bucket; 0 = empty. */
  private table: Uint32Array;
  private count = 0;
  private readonly homeOf = (value: number): number =>
    mixId(this.ids[value - 1] ?? 0) & (this.table.length - 1);

  constructor(ids: Float64Array = new Float64Array(1024), used = 0) {
    this.ids = ids;
    this.table = new Uint32Array(powerOfTwo(used * 2));
    for (let slot = 0; slot < used; slot++) if ((ids[slot] ?? 0) !== 0) this.insert(slot);
  }

  get size(): number {
    return this.count;
  }

  get bytes(): number {
    return this.ids.byteLength + this.table.byteLength;
  }

  /** The face id in a slot, 0 when the slot is free. */
  idOf(slot: number): number {
    return this.ids[slot] ?? 0;
  }

  /** The slot holding a face id, or -1. */
  slotOf(id: number): number {
    const mask = this.table.length - 1;
    for (let i = mixId(id) & mask; ; i = (i + 1) & mask) {
      const value = this.table[i] ?? 0;
      if (value === 0) return -1;
      if (this.ids[value - 1] === id) return value - 1;
    }
  }

  /** Puts a face id (not held yet) in a free slot. */
  set(slot: number, id: number): void {
    if (slot >= this.ids.length) {
      const grown = new Float64Array(Math.max(slot + 1, Math.ceil(this.ids.length * 1.5)));
      grown.set(this.ids);
      this.ids = grown;
    }
    this.ids[slot] = id;
    if ((this.count + 1) * 2 > this.table.length) this.rehash(this.table.length * 2);
    this.insert(slot);
  }

  /** Frees a slot. */
  delete(slot: number): void {
    const id = this.ids[slot] ?? 0;
    if (id === 0) return;
    const mask = this.table.length - 1;
    for (let i = mixId(id) & mask; ; i = (i + 1) & mask) {
      const value = this.table[i] ?? 0;
      if (value === 0) break;
      if (value === slot + 1) {
        deleteAt(this.table, i, this.homeOf);
        this.count -= 1;
        break;
      }
    }
    this.ids[slot] = 0;
  }

  /** A copy of the ids of slots [0, used). */
  copyIds(used: number): Float64Array {
    return this.ids.slice(0, used);
  }

  private insert(slot: number): void {
    const mask = this.table.length - 1;
    let i = mixId(this.ids[slot] ?? 0) & mask;
    while ((this.table[i] ?? 0) !== 0) i = (i + 1) & mask;
    this.table[i] = slot + 1;
    this.count += 1;
  }

  private rehash(size: number): void {
    const old = this.table;
    this.table = new Uint32Array(size);
    this.count = 0;
    for (const value of old) if (value !== 0) this.insert(value - 1);
  }
}

/** The arrays an OwnerKeyTable keeps in a snapshot. */
export interface OwnerKeyParts {
  arena: Buffer;
  start: Uint32Array;
  length: Uint32Array;
}

/**
 * Owner keys (claim ids) by owner number, their UTF-8 bytes end to end in one Buffer. A removed
 * owner's bytes are zeroed at once; their room is reclaimed when the index is rebuilt (a new table).
 */
export class OwnerKeyTable {
  private arena: Buffer;
  private arenaUsed: number;
  private start: Uint32Array;
  private length: Uint32Array;
  private hash: Uint32Array;
  private used: number;
  private live = 0;
  /** owner + 1 per bucket; 0 = empty. */
  private table: Uint32Array;
  private scratch = Buffer.alloc(256);
  private readonly homeOf = (value: number): number => (this.hash[value - 1] ?? 0) & (this.table.length - 1);

  constructor(parts?: OwnerKeyParts) {
    this.arena = parts?.arena ?? Buffer.alloc(4096);
    this.start = parts?.start ?? new Uint32Array(256);
    this.length = parts?.length ?? new Uint32Array(256);
    this.used = parts ? parts.start.length : 0;
    this.arenaUsed = parts ? parts.arena.length : 0;
    this.hash = new Uint32Array(Math.max(256, this.used));
    this.table = new Uint32Array(powerOfTwo(this.used * 2));
    for (let owner = 0; owner < this.used; owner++) {
      const length = this.length[owner] ?? 0;
      if (length === 0) continue;
      const from = this.start[owner] ?? 0;
      this.hash[owner] = fnv1a(this.arena, from, length);
      this.insert(owner);
    }
  }

  /** Owners holding at least one face. */
  get size(): number {
    return this.live;
  }

  /** Owner numbers handed out (live or removed) since the last compaction. */
  get capacity(): number {
    return this.used;
  }

  get bytes(): number {
    return (
      this.arena.byteLength +
      this.start.byteLength +
      this.length.byteLength +
      this.hash.byteLength +
      this.table.byteLength
    );
  }

  /** The owner number of a key, or -1. */
  ownerOf(key: string): number {
    const length = this.encode(key);
    const h = fnv1a(this.scratch, 0, length);
    const mask = this.table.length - 1;
    for (let i = h & mask; ; i = (i + 1) & mask) {
      const value = this.table[i] ?? 0;
      if (value === 0) return -1;
      const owner = value - 1;
      if (this.hash[owner] !== h || this.length[owner] !== length) continue;
      const from = this.start[owner] ?? 0;
      if (this.scratch.compare(this.arena, from, from + length, 0, length) === 0) return owner;
    }
  }

  /** Adds a key not held yet (a non-empty string); returns its owner number. */
  add(key: string): number {
    const length = this.encode(key);
    if (length === 0) throw new RangeError('an owner key must not be empty');
    if (this.arenaUsed + length > this.arena.length) {
      const grown = Buffer.alloc(Math.max(this.arenaUsed + length, this.arena.length * 2));
      this.arena.copy(grown, 0, 0, this.arenaUsed);
      this.arena = grown;
    }
    if (this.used === this.start.length) {
      const size = Math.max(256, this.used * 2);
      this.start = grow(this.start, size);
      this.length = grow(this.length, size);
    }
    if (this.used >= this.hash.length) this.hash = grow(this.hash, Math.max(256, this.used * 2));
    const owner = this.used;
    this.used += 1;
    this.scratch.copy(this.arena, this.arenaUsed, 0, length);
    this.start[owner] = this.arenaUsed;
    this.length[owner] = length;
    this.hash[owner] = fnv1a(this.scratch, 0, length);
    this.arenaUsed += length;
    if ((this.live + 1) * 2 > this.table.length) this.rehash(this.table.length * 2);
    this.insert(owner);
    return owner;
  }

  /** Removes an owner: its number is not handed out again before a compaction; its bytes are zeroed. */
  remove(owner: number): void {
    const length = this.length[owner] ?? 0;
    if (length === 0) return;
    const mask = this.table.length - 1;
    for (let i = (this.hash[owner] ?? 0) & mask; ; i = (i + 1) & mask) {
      const value = this.table[i] ?? 0;
      if (value === 0) break;
      if (value === owner + 1) {
        deleteAt(this.table, i, this.homeOf);
        this.live -= 1;
        break;
      }
    }
    const from = this.start[owner] ?? 0;
    this.arena.fill(0, from, from + length);
    this.length[owner] = 0;
  }

  keyOf(owner: number): string {
    const from = this.start[owner] ?? 0;
    return this.arena.toString('utf8', from, from + (this.length[owner] ?? 0));
  }

  /** Copies of the arrays as they are now (removed owners have length 0). */
  parts(): OwnerKeyParts {
    return {
      arena: Buffer.from(this.arena.subarray(0, this.arenaUsed)),
      start: this.start.slice(0, this.used),
      length: this.length.slice(0, this.used),
    };
  }

  private encode(key: string): number {
    const length = Buffer.byteLength(key, 'utf8');
    if (length > this.scratch.length) this.scratch = Buffer.alloc(length * 2);
    return this.scratch.write(key, 0, 'utf8');
  }

  private insert(owner: number): void {
    const mask = this.table.length - 1;
    let i = (this.hash[owner] ?? 0) & mask;
    while ((this.table[i] ?? 0) !== 0) i = (i + 1) & mask;
    this.table[i] = owner + 1;
    this.live += 1;
  }

  private rehash(size: number): void {
    const old = this.table;
    this.table = new Uint32Array(size);
    this.live = 0;
    for (const value of old) if (value !== 0) this.insert(value - 1);
  }
}

function grow(array: Uint32Array, size: number): Uint32Array {
  const grown = new Uint32Array(size);
  grown.set(array);
  return grown;
}
