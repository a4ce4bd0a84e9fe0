import { HASH_BITS, HASH_WORDS, hashDistance, popcount32 } from './fingerprint';
import {
  BLOCK_BITS,
  BLOCK_START,
  SHORT_WORD,
  blockKey,
  keysWithin,
  forEachKeyWithin,
} from './multi-index-hashing';

/**
 * Work done by the look-ups so far, a figure that does not depend on the machine's load (for
 * bench/detection): block-table searches, bucket keys probed (a head read each), stored entries
 * walked in the probed buckets (a link and short word read, one cache line), and stored hashes
 * compared whole (a second cache line; in the scan fallback, every paired hash).
 */
export interface ImageSearchWork {
  lookups: number;
  searches: number;
  bucketsProbed: number;
  entriesWalked: number;
  entriesCompared: number;
}

/**
 * The stored hashes of one shelf (SHELVES), filed by block: typed arrays (no object per
 * entry) so that millions fit. A reference's `group` hashes sit at entries slot * group + i, so
 * an entry's owner needs no storage. Each block's buckets are singly linked lists through
 * `links`: per entry a pair [next entry + 1 (0 ends a list, so the zero-filled head arrays need
 * no initialising and their untouched pages cost no memory), the entry's SHORT_WORD].
 */
export class BlockTable {
  private capacity = 0;
  private words = new Uint32Array(0);
  private readonly heads = BLOCK_BITS.map((bits) => new Int32Array(2 ** bits));
  private links = BLOCK_BITS.map(() => new Int32Array(0));

  constructor(readonly group: number) {}

  /** Bytes held by the entries (not counting the fixed bucket heads). */
  get entryBytes(): number {
    return this.capacity * this.group * (HASH_WORDS * 4 + BLOCK_BITS.length * 8);
  }

  private grow(slots: number): void {
    // Grows by half, not double: at a million references a doubling would strand hundreds of MiB.
    const capacity = Math.max(1024, Math.ceil(this.capacity * 1.5), slots);
    const words = new Uint32Array(capacity * this.group * HASH_WORDS);
    words.set(this.words);
    this.words = words;
    this.links = this.links.map((old) => {
      const links = new Int32Array(capacity * this.group * 2);
      links.set(old);
      return links;
    });
    this.capacity = capacity;
  }

  /** Files the slot's hashes, read from `source` at the word offsets `at`. */
  insert(slot: number, source: Uint32Array, at: readonly number[]): void {
    if (slot >= this.capacity) this.grow(slot + 1);
    at.forEach((offset, i) => {
      const entry = slot * this.group + i;
      for (let w = 0; w < HASH_WORDS; w += 1) this.words[entry * HASH_WORDS + w] = source[offset + w] ?? 0;
      BLOCK_BITS.forEach((bits, block) => {
        const key = blockKey(this.words, entry * HASH_WORDS, BLOCK_START[block] ?? 0, bits);
        const heads = this.heads[block] ?? new Int32Array(0);
        const links = this.links[block] ?? new Int32Array(0);
        links[entry * 2] = heads[key] ?? 0;
        links[entry * 2 + 1] = this.words[entry * HASH_WORDS + (SHORT_WORD[block] ?? 0)] ?? 0;
        heads[key] = entry + 1;
      });
    });
  }

  /** Unfiles the slot's hashes. */
  remove(slot: number): void {
    for (let i = 0; i < this.group; i += 1) {
      const entry = slot * this.group + i;
      BLOCK_BITS.forEach((bits, block) => {
        const key = blockKey(this.words, entry * HASH_WORDS, BLOCK_START[block] ?? 0, bits);
        const heads = this.heads[block] ?? new Int32Array(0);
        const links = this.links[block] ?? new Int32Array(0);
        if (heads[key] === entry + 1) {
          heads[key] = links[entry * 2] ?? 0;
          return;
        }
        for (let at = (heads[key] ?? 0) - 1; at !== -1; at = (links[at * 2] ?? 0) - 1) {
          if (links[at * 2] === entry + 1) {
            links[at * 2] = links[entry * 2] ?? 0;
            return;
          }
        }
      });
    }
  }

  /** The smallest distance from the query hash to the slot's paired hashes (a scan, for the fallback). */
  distanceTo(slot: number, query: Uint32Array, at: number, paired: Uint8Array): number {
    let best = HASH_BITS;
    for (let i = 0; i < this.group; i += 1) {
      if (paired[i] === 1)
        best = Math.min(best, hashDistance(this.words, (slot * this.group + i) * HASH_WORDS, query, at));
    }
    return best;
  }

  /**
   * Calls `visit(slot, distance)` for every entry within `maxDistance` of the query hash (some
   * twice) whose position in its slot's group is marked in `paired`.
   */
  search(
    query: Uint32Array,
    at: number,
    maxDistance: number,
    paired: Uint8Array,
    visit: (slot: number, distance: number) => void,
    work: ImageSearchWork,
  ): void {
    const radius = Math.floor(maxDistance / BLOCK_BITS.length);
    // Norouzi et al.'s refinement of the pigeonhole bound: if the first `wide` blocks each
    // differed in more than `radius` bits and the others in more than radius - 1, the distance
    // would exceed maxDistance; so the blocks after the first `wide` need only radius - 1. At the
    // detection threshold (17 bits) every block needs radius 2; once a match lowers the limit,
    // most blocks need only 1.
    const wide = maxDistance - BLOCK_BITS.length * radius + 1;
    const q0 = query[at] ?? 0;
    const q1 = query[at + 1] ?? 0;
    const q2 = query[at + 2] ?? 0;
    const q3 = query[at + 3] ?? 0;
    const words = this.words;
    const group = this.group;
    let walked = 0;
    let compared = 0;
    let probed = 0;
    for (let block = 0; block < BLOCK_BITS.length; block += 1) {
      const bits = BLOCK_BITS[block] ?? 0;
      const heads = this.heads[block] ?? new Int32Array(0);
      const links = this.links[block] ?? new Int32Array(0);
      const qShort = query[at + (SHORT_WORD[block] ?? 0)] ?? 0;
      // The hot loop: a bucket walk that first bounds the distance by the flips of the block key
      // and the short word held beside the link, then reads the whole hash with a popcount that
      // stops as soon as the distance is exceeded.
      const walk = (key: number, flips: number): void => {
        const shortLimit = maxDistance - flips;
        for (let entry = (heads[key] ?? 0) - 1; entry !== -1; entry = (links[entry * 2] ?? 0) - 1) {
          walked += 1;
          if (popcount32(((links[entry * 2 + 1] ?? 0) ^ qShort) >>> 0) > shortLimit) continue;
          compared += 1;
          const base = entry * HASH_WORDS;
          let distance = popcount32(((words[base] ?? 0) ^ q0) >>> 0);
          if (distance > maxDistance) continue;
          distance += popcount32(((words[base + 1] ?? 0) ^ q1) >>> 0);
          if (distance > maxDistance) continue;
          distance += popcount32(((words[base + 2] ?? 0) ^ q2) >>> 0);
          if (distance > maxDistance) continue;
          distance += popcount32(((words[base + 3] ?? 0) ^ q3) >>> 0);
          if (distance > maxDistance) continue;
          const slot = (entry / group) | 0;
          // Only the slot's hashes this probe is paired with count (PAIRED).
          if (paired[entry - slot * group] === 1) visit(slot, distance);
        }
      };
      const key = blockKey(query, at, BLOCK_START[block] ?? 0, bits);
      const blockRadius = block < wide ? radius : radius - 1;
      if (blockRadius > 2) {
        forEachKeyWithin(key, bits, blockRadius, (k) => {
          probed += 1;
          walk(k, popcount32((k ^ key) >>> 0));
        });
        continue;
      }
      // Radius 0 to 2 (thresholds down to 0.86), without a callback per key: skipping empty
      // buckets inline is most of the saving, as most of the ~250 keys probed are empty.
      probed += keysWithin(bits, blockRadius);
      if (blockRadius < 0) continue;
      if ((heads[key] ?? 0) !== 0) walk(key, 0);
      for (let i = 0; blockRadius > 0 && i < bits; i += 1) {
        const one = key ^ (1 << i);
        if ((heads[one] ?? 0) !== 0) walk(one, 1);
        for (let j = i + 1; blockRadius > 1 && j < bits; j += 1) {
          const two = one ^ (1 << j);
          if ((heads[two] ?? 0) !== 0) walk(two, 2);
        }
      }
    }
    work.searches += 1;
    work.bucketsProbed += probed;
    work.entriesWalked += walked;
    work.entriesCompared += compared;
  }
}
