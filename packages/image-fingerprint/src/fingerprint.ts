// The fingerprint of a picture and how two are compared. Pure: no sharp here.

/** Bits of one hash: a 64-bit DCT pHash followed by a 64-bit difference hash. */
export const HASH_BITS = 128;
/** 32-bit words of one hash. */
export const HASH_WORDS = HASH_BITS / 32;

/**
 * Where a reference's stored hashes are filed, and what a picture's probe hashes are compared
 * with: `whole` (the reference as it is), `crop` (the reference cut on one side), `turn` (the
 * reference turned and trimmed to its inner rectangle, as a "straighten" tool leaves it).
 */
export type StoredTable = 'whole' | 'crop' | 'turn';
export const HASH_TABLES: readonly StoredTable[] = ['whole', 'crop', 'turn'];

/** Trim of a region, as fractions of the picture: [left, top, right, bottom]. */
export type Trim = readonly [number, number, number, number];

/** A hash stored for every reference picture (index-side augmentation). */
export type ReferenceVariant = { table: 'whole' | 'crop'; trim: Trim } | { table: 'turn'; degrees: number };

/** Fractions cut from one side that the stored crop hashes cover (a copy cut anywhere up to a third is near one). */
export const ONE_SIDED_CROPS = [0.1, 0.2, 0.3] as const;
/** Fractions cut from every side that the stored centred crop hashes cover (zoomed-in copies). */
export const CENTRED_CROPS = [0.05, 0.1] as const;
/** Angles (degrees) of the stored turned hashes (a copy turned up to 15° is within 2.5° of one). */
export const TURNS = [-15, -10, -5, 5, 10, 15] as const;

/** The hashes stored for a reference, in the order of the stored words. */
export const REFERENCE_VARIANTS: readonly ReferenceVariant[] = [
  { table: 'whole', trim: [0, 0, 0, 0] },
  ...ONE_SIDED_CROPS.flatMap((f): ReferenceVariant[] => [
    { table: 'crop', trim: [f, 0, 0, 0] },
    { table: 'crop', trim: [0, f, 0, 0] },
    { table: 'crop', trim: [0, 0, f, 0] },
    { table: 'crop', trim: [0, 0, 0, f] },
  ]),
  // Zoomed in: cut on every side, as v1 did (a crop of 4-8 % per side was its one crop case).
  ...CENTRED_CROPS.map((f): ReferenceVariant => ({ table: 'crop', trim: [f, f, f, f] })),
  ...TURNS.map((degrees): ReferenceVariant => ({ table: 'turn', degrees })),
];

/**
 * A hash taken of a checked picture (query-side), each also taken of its mirror image, and the
 * tables it is compared with:
 *  - the whole picture: against every stored hash (the same picture; a one-sided crop of it; a
 *    straightened turn of it);
 *  - centred crops (a frame added) and top or bottom crops (a caption band added): against the
 *    reference's whole hash, since there the reference is a part of the picture;
 *  - `turnedCanvas`: the inner rectangle the picture would hold if it were the reference turned by
 *    that many degrees on an enlarged canvas with filled corners: against the turned hashes of
 *    that angle, either way round (`isPaired`).
 */
export type ProbeVariant =
  | { searches: readonly StoredTable[]; trim: Trim; mirrored: boolean }
  | { searches: readonly StoredTable[]; turnedCanvas: number; mirrored: boolean };

const PROBE_SHAPES: readonly (
  | { searches: readonly StoredTable[]; trim: Trim }
  | { searches: readonly StoredTable[]; turnedCanvas: number }
)[] = [
  { searches: ['whole', 'crop', 'turn'], trim: [0, 0, 0, 0] },
  { searches: ['whole'], trim: [0.05, 0.05, 0.05, 0.05] },
  { searches: ['whole'], trim: [0.1, 0.1, 0.1, 0.1] },
  { searches: ['whole'], trim: [0, 0.15, 0, 0] },
  { searches: ['whole'], trim: [0, 0, 0, 0.15] },
  { searches: ['turn'], turnedCanvas: 5 },
  { searches: ['turn'], turnedCanvas: 10 },
  { searches: ['turn'], turnedCanvas: 15 },
];

/** The probe hashes of a checked picture, in the order of its probe words. */
export const PROBE_VARIANTS: readonly ProbeVariant[] = [false, true].flatMap((mirrored) =>
  PROBE_SHAPES.map((shape): ProbeVariant => ({ ...shape, mirrored })),
);

/**
 * The similarity at and above which two fingerprints are taken for the same picture (at most 17
 * differing bits of 128; the index's blocks are sized for it). Measured in the README.
 */
export const DEFAULT_MATCH_THRESHOLD = 0.86;
/** 32-bit words of the stored part of a fingerprint. */
export const FINGERPRINT_WORDS = HASH_WORDS * REFERENCE_VARIANTS.length;
/** 32-bit words of the probe part of a fingerprint. */
export const PROBE_WORDS = HASH_WORDS * PROBE_VARIANTS.length;
// Stored fingerprints start with the format version, so an older format is recognised as such.
const HEX_PREFIX = 'v2:';
const HEX_LENGTH = HEX_PREFIX.length + FINGERPRINT_WORDS * 8;

/**
 * A picture's perceptual fingerprint. `words`: the hashes stored for a reference picture
 * (`REFERENCE_VARIANTS`, `FINGERPRINT_WORDS` 32-bit words). `probes`: the hashes compared when
 * the picture is the one being checked (`PROBE_VARIANTS`); not stored, so a fingerprint read back
 * from storage has none. Treat both as opaque.
 */
export interface ImageFingerprint {
  readonly words: Uint32Array;
  readonly probes?: Uint32Array;
}

/** The number of set bits of a 32-bit integer. */
export function popcount32(value: number): number {
  let v = value - ((value >>> 1) & 0x55555555);
  v = (v & 0x33333333) + ((v >>> 2) & 0x33333333);
  v = (v + (v >>> 4)) & 0x0f0f0f0f;
  v += v >>> 8;
  return (v + (v >>> 16)) & 0x3f;
}

/** Hamming distance between the hash of `a` at word `aAt` and the hash of `b` at word `bAt`. */
export function hashDistance(a: Uint32Array, aAt: number, b: Uint32Array, bAt: number): number {
  let distance = 0;
  for (let i = 0; i < HASH_WORDS; i += 1)
    distance += popcount32(((a[aAt + i] ?? 0) ^ (b[bAt + i] ?? 0)) >>> 0);
  return distance;
}

/** For each table, the word offsets of the stored hashes filed in it. */
export const STORED_IN: Readonly<Record<StoredTable, readonly number[]>> = Object.fromEntries(
  HASH_TABLES.map((table) => [
    table,
    REFERENCE_VARIANTS.flatMap((variant, i) => (variant.table === table ? [i * HASH_WORDS] : [])),
  ]),
) as Record<StoredTable, number[]>;

/**
 * Whether probe `p` is compared with stored hash `v`: its table is one the probe searches, and a
 * turned-canvas probe meets only the turns of its own angle (either way round) — the inner
 * rectangle it takes is right for that angle only, and every pairing more is a chance more of a
 * false match.
 */
export function isPaired(probe: ProbeVariant, variant: ReferenceVariant): boolean {
  if (!probe.searches.includes(variant.table)) return false;
  if ('turnedCanvas' in probe && 'degrees' in variant)
    return Math.abs(variant.degrees) === probe.turnedCanvas;
  return true;
}

/** PAIRED[p][v]: probe p is compared with stored hash v. */
export const PAIRED: readonly (readonly boolean[])[] = PROBE_VARIANTS.map((probe) =>
  REFERENCE_VARIANTS.map((variant) => isPaired(probe, variant)),
);

/** The smallest distance from the probes of `picture` to the stored hashes of `reference`. */
function probeDistance(picture: ImageFingerprint, reference: ImageFingerprint): number {
  const probes = picture.probes;
  if (probes === undefined) return HASH_BITS;
  let best = HASH_BITS;
  PAIRED.forEach((paired, p) => {
    paired.forEach((isPair, v) => {
      if (isPair)
        best = Math.min(best, hashDistance(probes, p * HASH_WORDS, reference.words, v * HASH_WORDS));
    });
  });
  return best;
}

/**
 * The smallest distance between two fingerprints: each one's probe hashes (if it has them)
 * against the other's stored hashes, with the pairings of `PROBE_VARIANTS`. A fingerprint read
 * back from storage has no probes, so against it only the other's probes count.
 */
export function fingerprintDistance(a: ImageFingerprint, b: ImageFingerprint): number {
  return Math.min(probeDistance(a, b), probeDistance(b, a));
}

/** How alike two pictures are, 0..1: 1 - (smallest Hamming distance) / 128. Symmetric, deterministic. */
export function imageSimilarity(a: ImageFingerprint, b: ImageFingerprint): number {
  return 1 - fingerprintDistance(a, b) / HASH_BITS;
}

/** The stored part of a fingerprint as text (version prefix and hex), for storage. */
export function fingerprintToHex(fingerprint: ImageFingerprint): string {
  let hex = HEX_PREFIX;
  for (const word of fingerprint.words) hex += word.toString(16).padStart(8, '0');
  return hex;
}

/** True when `hex` is a stored fingerprint of the current format (an older one must be recomputed). */
export function isCurrentFingerprintHex(hex: string): boolean {
  return hex.length === HEX_LENGTH && hex.startsWith(HEX_PREFIX) && /^[0-9a-f]+$/i.test(hex.slice(3));
}

/** The fingerprint written by `fingerprintToHex` (without probes); throws on anything else. */
export function fingerprintFromHex(hex: string): ImageFingerprint {
  if (!isCurrentFingerprintHex(hex)) {
    throw new Error(
      `a fingerprint is "${HEX_PREFIX}" and ${FINGERPRINT_WORDS * 8} hex characters (got ${hex.length} characters)`,
    );
  }
  const words = new Uint32Array(FINGERPRINT_WORDS);
  const at = HEX_PREFIX.length;
  for (let i = 0; i < FINGERPRINT_WORDS; i += 1)
    words[i] = parseInt(hex.slice(at + i * 8, at + i * 8 + 8), 16);
  return { words };
}
