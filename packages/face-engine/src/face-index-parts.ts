// Typed views of a snapshot's parts (copies only when unaligned), and arrays grown for more slots.

export function f32(part: Uint32Array | Buffer | undefined, length: number, name: string): Float32Array {
  return typed(part, length, 4, name, (b, o, l) => new Float32Array(b, o, l));
}
export function f64(part: Uint32Array | Buffer | undefined, length: number, name: string): Float64Array {
  return typed(part, length, 8, name, (b, o, l) => new Float64Array(b, o, l));
}
export function u32(part: Uint32Array | Buffer | undefined, length: number, name: string): Uint32Array {
  return typed(part, length, 4, name, (b, o, l) => new Uint32Array(b, o, l));
}
export function u8(part: Uint32Array | Buffer | undefined, length: number, name: string): Uint8Array {
  return typed(part, length, 1, name, (b, o, l) => new Uint8Array(b, o, l));
}
/** A view of a part (a copy when it is not aligned for the element size). */
function typed<T>(
  part: Uint32Array | Buffer | undefined,
  length: number,
  size: number,
  name: string,
  make: (buffer: ArrayBufferLike, offset: number, length: number) => T,
): T {
  if (part === undefined || part.byteLength !== length * size)
    throw new RangeError(`face index snapshot: part ${name} is missing or of the wrong size`);
  if (part.byteOffset % size === 0) return make(part.buffer, part.byteOffset, length);
  const copy = new Uint8Array(part.byteLength);
  copy.set(new Uint8Array(part.buffer, part.byteOffset, part.byteLength));
  return make(copy.buffer, 0, length);
}
/** A Buffer over a typed array's memory (no copy). */
export function bytesOf(array: Float32Array | Float64Array | Uint8Array): Buffer {
  return Buffer.from(array.buffer, array.byteOffset, array.byteLength);
}
export function grownU32(array: Uint32Array, size: number): Uint32Array {
  const grown = new Uint32Array(size);
  grown.set(array.subarray(0, Math.min(array.length, size)));
  return grown;
}
export function grownF32(array: Float32Array, size: number): Float32Array {
  const grown = new Float32Array(size);
  grown.set(array.subarray(0, Math.min(array.length, size)));
  return grown;
}
