import { StringTable } from './string-table';
import { IntMultiMap } from './int-multi-map';
export * from './growable-storage';
export { hash32, StringTable } from './string-table';
export * from './int-multi-map';

/**
 * The index's storage: growable typed arrays and byte arenas, so that millions of names live off
 * the garbage-collected heap (ADR 0007). Everything is append-only: a replaced or removed name
 * stays as garbage until the index is rebuilt, which keeps every structure a few flat arrays that
 * a snapshot writes and reads back as they are.
 */

/** Snapshot parts by name: typed arrays and buffers of the compact tables, as a snapshot stored them. */
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
