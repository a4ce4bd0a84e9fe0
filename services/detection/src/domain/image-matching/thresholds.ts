import { DEFAULT_MATCH_THRESHOLD } from '@svc/image-fingerprint';

/**
 * A checked picture matches a protected identity when its similarity to one of the identity's
 * reference images is at least this (layer 5, IMAGE_MATCH). Measured on 100 generated scenes
 * (packages/image-fingerprint/README.md): resized, recompressed (JPEG 30-40, WebP), 5 %-cropped
 * and re-lit copies stay at or above 0.906; different pictures at or below 0.758. One value for
 * every enforcement level: the two groups do not overlap, so a per-level value would only move
 * the line inside the gap without changing what matches; and the index is sized for at most 17
 * differing bits (0.86), so a looser STRICT value would make every query slower.
 */
export const IMAGE_MATCH_THRESHOLD = DEFAULT_MATCH_THRESHOLD;
