import { DEFAULT_MATCH_THRESHOLD } from '@svc/image-fingerprint';

/**
 * A checked picture matches a protected identity when its similarity to one of the identity's
 * reference images is at least this (layer 5, IMAGE_MATCH). Measured on a generated labelled set
 * of edited pictures (packages/image-fingerprint/README.md, ADR 0015): mirrored, cut by up to a
 * third on one side, turned up to 15°, resized, recompressed, colour-shifted, captioned and framed
 * copies are found with recall >= 0.95 per edit, with no false match on that set (the test holds
 * precision >= 0.97 per edit).
 * One value for every enforcement level: the index is sized for at most 17 differing bits (0.86),
 * so a looser STRICT value would make every query slower, and a stricter one would lose the
 * turned and captioned copies first.
 */
export const IMAGE_MATCH_THRESHOLD = DEFAULT_MATCH_THRESHOLD;
