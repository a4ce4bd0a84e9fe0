import { HASH_BITS, HASH_WORDS, PAIRED, REFERENCE_VARIANTS, type ImageFingerprint } from './fingerprint';
import { BLOCK_BITS, keysWithin } from './multi-index-hashing';
import { BlockTable, type ImageSearchWork } from './block-table';
export type { ImageSearchWork } from './block-table';

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
