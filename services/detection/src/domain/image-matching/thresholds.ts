import { DEFAULT_MATCH_THRESHOLD } from '@svc/image-fingerprint';

/**
 * A checked picture matches a protected identity when its similarity to one of the identity's
 * reference images is at least this (layer 5, IMAGE_MATCH). Measured on generated scenes
 * (packages/image-fingerprint/README.md): resized, recompressed (JPEG 30-40, WebP), 5 % cropped and
 * re-lit copies stay at or above 0.914; different pictures stay at or below 0.758. One value for
 * every enforcement level: the two groups do not overlap, so a level-specific value would trade
 * no recall for precision or back, only move the threshold inside the gap; and the index's
 * blocks are sized for a distance of at most 17 bits (0.86), so a looser value would cost speed.
 */
export const IMAGE_MATCH_THRESHOLD = DEFAULT_MATCH_THRESHOLD;
