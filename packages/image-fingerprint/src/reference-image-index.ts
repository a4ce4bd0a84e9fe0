import {
  HASH_BITS,
  HASH_WORDS,
  PAIRED,
  REFERENCE_VARIANTS,
  hashDistance,
  popcount32,
  type ImageFingerprint,
} from './fingerprint';

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
 * The shelves the stored hashes are filed on, one BlockTable each: a stored kind
 * (`ReferenceVariant.table`), and for turns one shelf per angle either way round. A turned-canvas
 * probe is paired only with the turns of its own angle, so it walks a third of the turned hashes
 * instead of all of them (ADR 0015, "Look-ups at scale").
 */
const SHELF_OF_VARIANT = REFERENCE_VARIANTS.map((variant) =>
  'degrees' in variant ? `turn ${Math.abs(variant.degrees)}` : variant.table,
);
const SHELVES = [...new Set(SHELF_OF_VARIANT)];
/** Per shelf, the word offsets (in a stored fingerprint) of the hashes filed on it. */
const STORED_ON = SHELVES.map((shelf) =>
  SHELF_OF_VARIANT.flatMap((name, v) => (name === shelf ? [v * HASH_WORDS] : [])),
);

// Multi-index hashing (Norouzi et al.): each 128-bit hash is cut into BLOCK_BITS.length blocks and
// filed under each block's value. Two hashes within distance d differ, by the pigeonhole
// principle, in at most floor(d / blocks) bits of at least one block, so probing every key within
// that radius of each of the query's blocks finds every candidate; a popcount then checks it.
// Six blocks (22/22/21/21/21/21 bits) keep the radius at 2 up to a distance of 17 bits
// (similarity 0.86, the detection threshold): about 240 keys per block, and at 1M images about
// one entry per four buckets. (Seven 18-bit blocks reach 20 bits at radius 2 but visit eight
// times as many candidates: 3.4 ms instead of ~0.5 ms a query at 1M; see the README.)
const BLOCK_BITS = [22, 22, 21, 21, 21, 21] as const;
const BLOCK_START = BLOCK_BITS.map((_, i) => BLOCK_BITS.slice(0, i).reduce((a, b) => a + b, 0));
/**
 * Per block, a 32-bit word of the hash that shares no bit with the block (blocks 0-5 cover bits
 * 0-21, 22-43, 44-64, 65-85, 86-106, 107-127). It is kept beside each entry's bucket link, so a
 * walk reads link and word in one cache line: an entry found at `r` flips of the block key is
 * at least r + popcount(word ^ query word) away, and only entries within the limit by that
 * bound have their whole hash read (about 45 % of unrelated ones at 17 bits).
 */
const SHORT_WORD = [2, 3, 0, 0, 1, 1] as const;

/** The `bits` bits of a hash (words at `at`) starting at bit `start`, most significant first. */
function blockKey(words: Uint32Array, at: number, start: number, bits: number): number {
  let key = 0;
  for (let taken = 0; taken < bits;) {
    const bit = start + taken;
    const word = words[at + (bit >>> 5)] ?? 0;
    const offset = bit & 31;
    const take = Math.min(bits - taken, 32 - offset);
    // take <= 22 (the widest block), so the mask never reaches the sign bit.
    const chunk = (word >>> (32 - offset - take)) & ((1 << take) - 1);
    key = key * 2 ** take + chunk;
    taken += take;
  }
  return key;
}

/** Number of keys of `bits` bits within Hamming distance `radius` of a key. */
function keysWithin(bits: number, radius: number): number {
  let total = 0;
  let combinations = 1;
  for (let r = 0; r <= Math.min(radius, bits); r += 1) {
    total += combinations;
    combinations = (combinations * (bits - r)) / (r + 1);
  }
  return total;
}

/** Calls `visit` with every key within `radius` bit flips of `key` (each once). */
function forEachKeyWithin(key: number, bits: number, radius: number, visit: (key: number) => void): void {
  visit(key);
  if (radius <= 2) {
    // The usual case (thresholds down to 0.86), without recursion.
    for (let i = 0; radius > 0 && i < bits; i += 1) {
      const one = key ^ (1 << i);
      visit(one);
      for (let j = i + 1; radius > 1 && j < bits; j += 1) visit(one ^ (1 << j));
    }
    return;
  }
  const flip = (current: number, from: number, left: number): void => {
    for (let bit = from; bit < bits; bit += 1) {
      const next = current ^ (1 << bit);
      visit(next);
      if (left > 1) flip(next, bit + 1, left - 1);
    }
  };
  if (radius > 0) flip(key, 0, radius);
}

/**
 * The stored hashes of one shelf (SHELVES), filed by block: typed arrays (no object per
 * entry) so that millions fit. A reference's `group` hashes sit at entries slot * group + i, so
 * an entry's owner needs no storage. Each block's buckets are singly linked lists through
 * `links`: per entry a pair [next entry + 1 (0 ends a list, so the zero-filled head arrays need
 * no initialising and their untouched pages cost no memory), the entry's SHORT_WORD].
 */
class BlockTable {
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

/** The best reference image for a picture. */
export interface ReferenceMatch {
  identityId: string;
  imageId: string;
  similarity: number;
}

/**
 * The reference images of protected identities, in memory, searched by fingerprint without a
 * scan (multi-index hashing). Pure: no I/O. Every image's stored hashes are filed in the table of
 * their kind (whole, one-sided crops, turns); a query's probe hashes are looked up in the tables
 * `PROBE_VARIANTS` pairs them with, which is exactly `imageSimilarity`'s set of comparisons for a
 * picture against a stored reference.
 */
export class ReferenceImageIndex {
  private readonly tables = STORED_ON.map((offsets) => new BlockTable(offsets.length));
  // Per probe, the shelves it searches (those holding a hash it is paired with), with the
  // positions (in a slot's group) it is paired with.
  private static readonly LOOKUPS = PAIRED.map((pairs) =>
    STORED_ON.flatMap((offsets, shelf) => {
      const paired = Uint8Array.from(offsets, (at) => (pairs[at / HASH_WORDS] ? 1 : 0));
      return paired.includes(1) ? [{ shelf, paired }] : [];
    }),
  );
  // Stored hashes one look-up compares with each reference (what a scan compares per slot).
  private static readonly PAIRS = ReferenceImageIndex.LOOKUPS.reduce(
    (sum, lookups) => sum + lookups.reduce((n, { paired }) => n + paired.reduce((a, b) => a + b, 0), 0),
    0,
  );
  /** Running totals of the work done by look-ups (see ImageSearchWork); reset them at will. */
  readonly work: ImageSearchWork = {
    lookups: 0,
    searches: 0,
    bucketsProbed: 0,
    entriesWalked: 0,
    entriesCompared: 0,
  };
  // Per slot: its identity and image ids (undefined: a free slot), and the next slot + 1 of the
  // same identity (a linked list per identity: no Set per identity).
  private readonly identityOf: (string | undefined)[] = [];
  private readonly imageOf: (string | undefined)[] = [];
  private nextOfIdentity = new Int32Array(1024);
  private readonly freeSlots: number[] = [];
  private readonly slotOfImage = new Map<string, number>();
  private readonly firstSlotOfIdentity = new Map<string, number>();

  /** Number of reference images. */
  get size(): number {
    return this.slotOfImage.size;
  }

  /** Bytes held in typed arrays by the stored hashes (the bucket heads, a fixed cost, aside). */
  get hashBytes(): number {
    return this.tables.reduce((sum, table) => sum + table.entryBytes, 0);
  }

  /** Adds a reference image of an identity (replacing an image with the same id). */
  add(identityId: string, imageId: string, fingerprint: ImageFingerprint): void {
    this.removeImage(imageId);
    const slot = this.freeSlots.pop() ?? this.identityOf.length;
    this.tables.forEach((table, shelf) => table.insert(slot, fingerprint.words, STORED_ON[shelf] ?? []));
    this.identityOf[slot] = identityId;
    this.imageOf[slot] = imageId;
    if (slot >= this.nextOfIdentity.length) {
      const grown = new Int32Array(Math.ceil(this.nextOfIdentity.length * 1.5) + 1);
      grown.set(this.nextOfIdentity);
      this.nextOfIdentity = grown;
    }
    this.nextOfIdentity[slot] = (this.firstSlotOfIdentity.get(identityId) ?? -1) + 1;
    this.firstSlotOfIdentity.set(identityId, slot);
    this.slotOfImage.set(imageId, slot);
  }

  /** Removes every reference image of an identity. */
  remove(identityId: string): void {
    for (let slot = this.firstSlotOfIdentity.get(identityId); slot !== undefined;) {
      const imageId = this.imageOf[slot];
      const next = (this.nextOfIdentity[slot] ?? 0) - 1;
      if (imageId !== undefined) this.removeImage(imageId);
      slot = next === -1 ? undefined : next;
    }
  }

  /** Removes one reference image. */
  removeImage(imageId: string): void {
    const slot = this.slotOfImage.get(imageId);
    const identityId = slot === undefined ? undefined : this.identityOf[slot];
    if (slot === undefined || identityId === undefined) return;
    for (const table of this.tables) table.remove(slot);
    // Unlink the slot from its identity's list.
    const after = this.nextOfIdentity[slot] ?? 0;
    if (this.firstSlotOfIdentity.get(identityId) === slot) {
      if (after === 0) this.firstSlotOfIdentity.delete(identityId);
      else this.firstSlotOfIdentity.set(identityId, after - 1);
    } else {
      for (let at = this.firstSlotOfIdentity.get(identityId) ?? -1; at !== -1;) {
        const next = (this.nextOfIdentity[at] ?? 0) - 1;
        if (next === slot) {
          this.nextOfIdentity[at] = after;
          break;
        }
        at = next;
      }
    }
    this.identityOf[slot] = undefined;
    this.imageOf[slot] = undefined;
    this.freeSlots.push(slot);
    this.slotOfImage.delete(imageId);
  }

  /**
   * The reference image most like the picture with a similarity of at least `minSimilarity`, or
   * null. Ties: highest similarity, then the smallest identityId, then the smallest imageId. The
   * picture's probe hashes are what is looked up: a fingerprint read back from storage has none
   * and matches nothing.
   */
  bestMatch(fingerprint: ImageFingerprint, minSimilarity: number): ReferenceMatch | null {
    const probes = fingerprint.probes;
    if (!(minSimilarity <= 1) || this.size === 0 || probes === undefined) return null;
    this.work.lookups += 1;
    // The epsilon absorbs float error when (1 - minSimilarity) * 128 is a whole number of bits.
    const maxDistance = Math.min(HASH_BITS, Math.floor((1 - minSimilarity) * HASH_BITS + 1e-9));
    const best = { distance: Infinity, slot: -1 };
    const consider = (slot: number, distance: number): void => {
      const identityId = this.identityOf[slot];
      if (identityId === undefined || distance > best.distance) return;
      const current = best.slot === -1 ? undefined : this.identityOf[best.slot];
      if (
        current === undefined ||
        distance < best.distance ||
        identityId < current ||
        (identityId === current && (this.imageOf[slot] ?? '') < (this.imageOf[best.slot] ?? ''))
      ) {
        best.distance = distance;
        best.slot = slot;
      }
    };
    const radius = Math.floor(maxDistance / BLOCK_BITS.length);
    const searches = ReferenceImageIndex.LOOKUPS.reduce((sum, lookups) => sum + lookups.length, 0);
    const probesPerSearch = BLOCK_BITS.reduce((sum, bits) => sum + keysWithin(bits, radius), 0);
    if (probesPerSearch * searches > this.size * 8) {
      // A loose threshold would probe more buckets than a scan compares hashes: scan instead.
      this.identityOf.forEach((identityId, slot) => {
        if (identityId === undefined) return;
        this.work.entriesWalked += ReferenceImageIndex.PAIRS;
        this.work.entriesCompared += ReferenceImageIndex.PAIRS;
        let distance = HASH_BITS;
        ReferenceImageIndex.LOOKUPS.forEach((lookups, p) => {
          for (const { shelf, paired } of lookups) {
            const table = this.tables[shelf];
            if (table) distance = Math.min(distance, table.distanceTo(slot, probes, p * HASH_WORDS, paired));
          }
        });
        if (distance <= maxDistance) consider(slot, distance);
      });
    } else {
      // Once a match is found, later look-ups need only reach its distance (ties still count):
      // a close match lowers the radius of the rest, and the whole picture's probe goes first.
      ReferenceImageIndex.LOOKUPS.forEach((lookups, p) => {
        for (const { shelf, paired } of lookups) {
          const limit = Math.min(maxDistance, best.distance);
          this.tables[shelf]?.search(probes, p * HASH_WORDS, limit, paired, consider, this.work);
        }
      });
    }
    const identityId = best.slot === -1 ? undefined : this.identityOf[best.slot];
    const imageId = best.slot === -1 ? undefined : this.imageOf[best.slot];
    if (identityId === undefined || imageId === undefined) return null;
    return { identityId, imageId, similarity: 1 - best.distance / HASH_BITS };
  }
}
