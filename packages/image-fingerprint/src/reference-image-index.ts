import {
  CROP_VARIANTS,
  HASH_BITS,
  HASH_WORDS,
  fingerprintDistance,
  popcount32,
  type ImageFingerprint,
} from './fingerprint';

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
 * Hashes filed by block: typed arrays (no object per entry) so that millions fit. Each block's
 * buckets are singly linked lists through `next`, holding entry + 1 (0 ends a list, so the
 * zero-filled head arrays need no initialising and their untouched pages cost no memory);
 * freed entries are reused.
 */
class HashTable {
  private capacity = 0;
  private words = new Uint32Array(0);
  private owners = new Int32Array(0);
  private readonly heads = BLOCK_BITS.map((bits) => new Int32Array(2 ** bits));
  private nexts = BLOCK_BITS.map(() => new Int32Array(0));
  private readonly free: number[] = [];
  private used = 0;

  get size(): number {
    return this.used - this.free.length;
  }

  private grow(): void {
    const capacity = Math.max(1024, this.capacity * 2);
    const words = new Uint32Array(capacity * HASH_WORDS);
    words.set(this.words);
    this.words = words;
    const owners = new Int32Array(capacity);
    owners.set(this.owners);
    this.owners = owners;
    this.nexts = this.nexts.map((old) => {
      const next = new Int32Array(capacity);
      next.set(old);
      return next;
    });
    this.capacity = capacity;
  }

  /** Files the hash at `source[at..]` for `owner`; returns the entry. */
  insert(source: Uint32Array, at: number, owner: number): number {
    let entry = this.free.pop();
    if (entry === undefined) {
      if (this.used === this.capacity) this.grow();
      entry = this.used;
      this.used += 1;
    }
    for (let i = 0; i < HASH_WORDS; i += 1) this.words[entry * HASH_WORDS + i] = source[at + i] ?? 0;
    this.owners[entry] = owner;
    BLOCK_BITS.forEach((bits, block) => {
      const key = blockKey(this.words, entry * HASH_WORDS, BLOCK_START[block] ?? 0, bits);
      const heads = this.heads[block] ?? new Int32Array(0);
      const next = this.nexts[block] ?? new Int32Array(0);
      next[entry] = heads[key] ?? 0;
      heads[key] = entry + 1;
    });
    return entry;
  }

  remove(entry: number): void {
    BLOCK_BITS.forEach((bits, block) => {
      const key = blockKey(this.words, entry * HASH_WORDS, BLOCK_START[block] ?? 0, bits);
      const heads = this.heads[block] ?? new Int32Array(0);
      const next = this.nexts[block] ?? new Int32Array(0);
      if (heads[key] === entry + 1) {
        heads[key] = next[entry] ?? 0;
        return;
      }
      for (let at = (heads[key] ?? 0) - 1; at !== -1; at = (next[at] ?? 0) - 1) {
        if (next[at] === entry + 1) {
          next[at] = next[entry] ?? 0;
          return;
        }
      }
    });
    this.owners[entry] = -1;
    this.free.push(entry);
  }

  /** Calls `visit(owner, distance)` for every entry within `maxDistance` of the query hash (some twice). */
  search(
    query: Uint32Array,
    at: number,
    maxDistance: number,
    visit: (owner: number, distance: number) => void,
  ): void {
    const radius = Math.floor(maxDistance / BLOCK_BITS.length);
    const q0 = query[at] ?? 0;
    const q1 = query[at + 1] ?? 0;
    const q2 = query[at + 2] ?? 0;
    const q3 = query[at + 3] ?? 0;
    const words = this.words;
    BLOCK_BITS.forEach((bits, block) => {
      const heads = this.heads[block] ?? new Int32Array(0);
      const next = this.nexts[block] ?? new Int32Array(0);
      // The hot loop: a bucket walk with a popcount that stops as soon as the distance is exceeded.
      const probe = (key: number): void => {
        for (let entry = (heads[key] ?? 0) - 1; entry !== -1; entry = (next[entry] ?? 0) - 1) {
          const base = entry * HASH_WORDS;
          let distance = popcount32(((words[base] ?? 0) ^ q0) >>> 0);
          if (distance > maxDistance) continue;
          distance += popcount32(((words[base + 1] ?? 0) ^ q1) >>> 0);
          if (distance > maxDistance) continue;
          distance += popcount32(((words[base + 2] ?? 0) ^ q2) >>> 0);
          if (distance > maxDistance) continue;
          distance += popcount32(((words[base + 3] ?? 0) ^ q3) >>> 0);
          if (distance <= maxDistance) visit(this.owners[entry] ?? -1, distance);
        }
      };
      forEachKeyWithin(blockKey(query, at, BLOCK_START[block] ?? 0, bits), bits, radius, probe);
    });
  }
}

/** The best reference image for a picture. */
export interface ReferenceMatch {
  identityId: string;
  imageId: string;
  similarity: number;
}

interface ImageSlot {
  identityId: string;
  imageId: string;
  fingerprint: ImageFingerprint;
  /** The whole picture's entry in `wholes`, then each crop's entry in `crops`. */
  entries: number[];
}

/**
 * The reference images of protected identities, in memory, searched by fingerprint without a
 * scan (multi-index hashing). Pure: no I/O. Every image's whole-picture hash and crop hashes are
 * filed; a query's whole hash is looked up among both, its crop hashes among whole hashes only,
 * which is exactly `imageSimilarity`'s set of comparisons.
 */
export class ReferenceImageIndex {
  private readonly wholes = new HashTable();
  private readonly crops = new HashTable();
  private readonly slots: (ImageSlot | undefined)[] = [];
  private readonly freeSlots: number[] = [];
  private readonly slotOfImage = new Map<string, number>();
  private readonly slotsOfIdentity = new Map<string, Set<number>>();

  /** Number of reference images. */
  get size(): number {
    return this.slotOfImage.size;
  }

  /** Adds a reference image of an identity (replacing an image with the same id). */
  add(identityId: string, imageId: string, fingerprint: ImageFingerprint): void {
    this.removeImage(imageId);
    const slot = this.freeSlots.pop() ?? this.slots.length;
    const entries = [this.wholes.insert(fingerprint.words, 0, slot)];
    for (let variant = 1; variant < CROP_VARIANTS.length; variant += 1) {
      entries.push(this.crops.insert(fingerprint.words, variant * HASH_WORDS, slot));
    }
    this.slots[slot] = { identityId, imageId, fingerprint, entries };
    this.slotOfImage.set(imageId, slot);
    const ofIdentity = this.slotsOfIdentity.get(identityId) ?? new Set<number>();
    ofIdentity.add(slot);
    this.slotsOfIdentity.set(identityId, ofIdentity);
  }

  /** Removes every reference image of an identity. */
  remove(identityId: string): void {
    for (const slot of [...(this.slotsOfIdentity.get(identityId) ?? [])]) {
      const image = this.slots[slot];
      if (image) this.removeImage(image.imageId);
    }
  }

  /** Removes one reference image. */
  removeImage(imageId: string): void {
    const slot = this.slotOfImage.get(imageId);
    const image = slot === undefined ? undefined : this.slots[slot];
    if (slot === undefined || image === undefined) return;
    const [whole, ...crops] = image.entries;
    if (whole !== undefined) this.wholes.remove(whole);
    for (const entry of crops) this.crops.remove(entry);
    this.slots[slot] = undefined;
    this.freeSlots.push(slot);
    this.slotOfImage.delete(imageId);
    const ofIdentity = this.slotsOfIdentity.get(image.identityId);
    ofIdentity?.delete(slot);
    if (ofIdentity?.size === 0) this.slotsOfIdentity.delete(image.identityId);
  }

  /**
   * The reference image most like the picture with a similarity of at least `minSimilarity`, or
   * null. Ties: highest similarity, then the smallest identityId, then the smallest imageId.
   */
  bestMatch(fingerprint: ImageFingerprint, minSimilarity: number): ReferenceMatch | null {
    if (!(minSimilarity <= 1) || this.size === 0) return null;
    // The epsilon absorbs float error when (1 - minSimilarity) * 128 is a whole number of bits.
    const maxDistance = Math.min(HASH_BITS, Math.floor((1 - minSimilarity) * HASH_BITS + 1e-9));
    const best: { distance: number; image: ImageSlot | undefined } = { distance: Infinity, image: undefined };
    const consider = (slot: number, distance: number): void => {
      const image = this.slots[slot];
      if (image === undefined || distance > best.distance) return;
      const current = best.image;
      if (
        current === undefined ||
        distance < best.distance ||
        image.identityId < current.identityId ||
        (image.identityId === current.identityId && image.imageId < current.imageId)
      ) {
        best.distance = distance;
        best.image = image;
      }
    };
    const radius = Math.floor(maxDistance / BLOCK_BITS.length);
    const probes = BLOCK_BITS.reduce((sum, bits) => sum + keysWithin(bits, radius), 0) * CROP_VARIANTS.length;
    if (probes > this.size) {
      // A loose threshold would probe more buckets than there are images: a scan is cheaper.
      this.slots.forEach((image, slot) => {
        if (image === undefined) return;
        const distance = fingerprintDistance(fingerprint, image.fingerprint);
        if (distance <= maxDistance) consider(slot, distance);
      });
    } else {
      this.wholes.search(fingerprint.words, 0, maxDistance, consider);
      this.crops.search(fingerprint.words, 0, maxDistance, consider);
      for (let variant = 1; variant < CROP_VARIANTS.length; variant += 1) {
        this.wholes.search(fingerprint.words, variant * HASH_WORDS, maxDistance, consider);
      }
    }
    if (best.image === undefined) return null;
    return {
      identityId: best.image.identityId,
      imageId: best.image.imageId,
      similarity: 1 - best.distance / HASH_BITS,
    };
  }
}
