import type { LikenessBand } from '@svc/contracts';
import { bandOf as faceBandOf, reviewDistanceOf, scoreOf } from '@svc/face-engine';

// The bands of docs/spec/contracts.md §15, from @svc/face-engine's thresholds (measured on the
// labelled face set, ADR 0026): they tighten as the gallery grows, so that one check expects at
// most 0.001 false matches however many faces are enrolled.

/** The distance within which an enrolled face is worth looking at (the review band's edge), for a gallery this large. */
export function reviewRadiusOf(gallerySize: number): number {
  return reviewDistanceOf(gallerySize);
}

/** The band of a face this far from an enrolled one, in a gallery this large. */
export function bandOf(distance: number, gallerySize: number): Exclude<LikenessBand, 'unavailable'> {
  return faceBandOf(distance, gallerySize);
}

/** A face's likeness, 0..1 (1: the same face): a match scores at least 0.80, a review at least 0.62. */
export function likenessScoreOf(distance: number): number {
  return scoreOf(distance);
}
