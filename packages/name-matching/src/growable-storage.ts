// The growing typed arrays and byte arenas every compact table is built on, and which memory a snapshot owns.

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
