// The fingerprint of a picture and how two are compared. Pure: no sharp here.

/** Bits of one hash: a 64-bit DCT pHash followed by a 64-bit difference hash. */
export const HASH_BITS = 128;
/** 32-bit words of one hash. */
export const HASH_WORDS = HASH_BITS / 32;
/**
 * The centred crops hashed for every picture, as the fraction cut from each side: the whole
 * picture, then its centre without 4 % and 8 % on each side. Comparing the whole of one picture
 * with the crops of the other is what makes a cropped copy match (a perceptual hash alone is
 * not robust to crops: see the README's figures).
 */
export const CROP_VARIANTS = [0, 0.04, 0.08] as const;
/**
 * The similarity at and above which two fingerprints are taken for the same picture. Measured on
 * 100 generated scenes (README): resized, recompressed, 5 %-cropped and re-lit copies >= 0.906;
 * different pictures <= 0.758. It allows at most 17 differing bits; the index's blocks are sized for it.
 */
export const DEFAULT_MATCH_THRESHOLD = 0.86;
/** 32-bit words of a whole fingerprint. */
export const FINGERPRINT_WORDS = HASH_WORDS * CROP_VARIANTS.length;
const HEX_LENGTH = FINGERPRINT_WORDS * 8;

/**
 * A picture's perceptual fingerprint: one 128-bit hash per crop variant (`CROP_VARIANTS`), the
 * whole picture's first, in `words` (`FINGERPRINT_WORDS` 32-bit words). Treat it as opaque.
 */
export interface ImageFingerprint {
  readonly words: Uint32Array;
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

/**
 * The smallest distance between two fingerprints: whole against whole, and the whole of each
 * against the other's crops (a crop of a crop is not compared: it would only add chances of a
 * false match).
 */
export function fingerprintDistance(a: ImageFingerprint, b: ImageFingerprint): number {
  let best = hashDistance(a.words, 0, b.words, 0);
  for (let variant = 1; variant < CROP_VARIANTS.length; variant += 1) {
    const at = variant * HASH_WORDS;
    best = Math.min(best, hashDistance(a.words, 0, b.words, at), hashDistance(a.words, at, b.words, 0));
  }
  return best;
}

/** How alike two pictures are, 0..1: 1 - (smallest Hamming distance) / 128. Symmetric, deterministic. */
export function imageSimilarity(a: ImageFingerprint, b: ImageFingerprint): number {
  return 1 - fingerprintDistance(a, b) / HASH_BITS;
}

/** The fingerprint as a hex string (96 characters), for storage. */
export function fingerprintToHex(fingerprint: ImageFingerprint): string {
  let hex = '';
  for (const word of fingerprint.words) hex += word.toString(16).padStart(8, '0');
  return hex;
}

/** The fingerprint written by `fingerprintToHex`; throws on anything else. */
export function fingerprintFromHex(hex: string): ImageFingerprint {
  if (hex.length !== HEX_LENGTH || !/^[0-9a-f]+$/i.test(hex)) {
    throw new Error(`not an image fingerprint: expected ${HEX_LENGTH} hex characters`);
  }
  const words = new Uint32Array(FINGERPRINT_WORDS);
  for (let i = 0; i < FINGERPRINT_WORDS; i += 1) words[i] = parseInt(hex.slice(i * 8, i * 8 + 8), 16);
  return { words };
}
