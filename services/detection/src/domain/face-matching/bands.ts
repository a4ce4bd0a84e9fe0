import type { LikenessBand } from '@svc/contracts';

// PLACEHOLDER until @svc/face-engine's likeness thresholds land (measured on the labelled face set).
const MATCH_DISTANCE = 0.45;
const REVIEW_DISTANCE = 0.55;

/** The distance within which a face is worth looking at (the review band's edge) for a gallery this large. */
export function reviewRadiusOf(_gallerySize: number): number {
  return REVIEW_DISTANCE;
}

/** The band of a face this far from an enrolled one, in a gallery this large. */
export function bandOf(distance: number, gallerySize: number): Exclude<LikenessBand, 'unavailable'> {
  if (distance <= MATCH_DISTANCE) return 'match';
  return distance <= reviewRadiusOf(gallerySize) ? 'review' : 'none';
}

/** A face's likeness, 0..1 (1: the same face). */
export function likenessScoreOf(distance: number): number {
  return Math.max(0, Math.min(1, 1 - distance));
}
