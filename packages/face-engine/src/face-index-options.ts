// What a face search and a rebuild take and answer, and the defaults of lists, cells and probes by size.

/** Below this many faces an index keeps one list: a scan of them all is as fast as probing. */
export const FACE_INDEX_FLAT_LIMIT = 20_000;

/** A face within the radius of a searched descriptor. */
export interface FaceMatch {
  faceId: number;
  ownerKey: string;
  /** Euclidean distance between the two descriptors (float32 numbers, summed in float64). */
  distance: number;
}

/** How wide a search looks. */
export interface FaceSearchOptions {
  /** Lists probed (the nearest to the descriptor); more finds more at a higher cost. */
  probes?: number;
  /** Also measure the other faces of every owner found (default true: they are the same person). */
  ownerFaces?: boolean;
  /** Coarse cells whose lists are ranked (default a quarter, at least 4; all: rank every list). */
  cells?: number;
}

/** The index's arrays as a snapshot stores them (ADR-style parts: Uint32Arrays and Buffers). */
export type FaceIndexParts = Record<string, Uint32Array | Buffer>;

/** What a rebuild (training) chooses. */
export interface FaceIndexRebuildOptions {
  /** Number of lists; default from the number of faces (1 below FACE_INDEX_FLAT_LIMIT). */
  lists?: number;
  /** Seed of the sample and of k-means (the same faces and seed give the same index). */
  seed?: number;
}

/** Lists for n faces: about 2 sqrt(n), a power of two (2,048 at 1M), one list below the flat limit. */
export function listsFor(faces: number): number {
  if (faces < FACE_INDEX_FLAT_LIMIT) return 1;
  let lists = 64;
  while (lists * lists < 4 * faces && lists < 8192) lists *= 2;
  return lists;
}

/** Coarse cells ranked by default: a quarter of them, at least 4. */
export function defaultCells(groups: number): number {
  return Math.min(groups, Math.max(4, Math.ceil(groups / 4)));
}

/**
 * Probes by default: a 64th of the lists, at least 16. With the owners' other faces measured too,
 * that found 0.996 of the exact matches within 0.5 at 1M faces (2,048 lists, 32 probes) and 0.994
 * at 100k (1,024 lists, 16 probes) in bench/likeness, but only 0.956 at 1M with the statistics of
 * real face-api descriptors (BENCH_FACE_MODEL=measured: 128 probes for 0.99). See bench/README.md.
 */
export function defaultProbes(lists: number): number {
  return lists <= 1 ? 1 : Math.min(lists, Math.max(16, Math.ceil(lists / 64)));
}
