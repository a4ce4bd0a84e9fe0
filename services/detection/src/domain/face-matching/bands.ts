import type { LikenessBand } from '@svc/contracts/common';
import { bandOf as faceBandOf, reviewDistanceOf, scoreOf } from '@svc/face-engine';

// The bands of docs/spec/contracts.md §15, from @svc/face-engine's thresholds (measured on the
// labelled face set, ADR 0026): they tighten as the gallery grows, so that one check expects at
// most 0.001 false matches however many faces are enrolled.

/** Pictures of one identity the search radius allows for (more would widen it a little further). */
const MOST_REFERENCES = 5;

/**
 * The distance within which an enrolled face is worth looking at, for a gallery this large: the
 * review edge of an identity with several pictures (its mean edge is the widest), since the
 * closest of its pictures is never farther than the mean.
 */
export function reviewRadiusOf(gallerySize: number): number {
  return reviewDistanceOf(gallerySize, MOST_REFERENCES);
}

/** How a face compares with one identity's enrolled pictures. */
export interface FaceComparison {
  /** To the closest picture. */
  distance: number;
  /** The mean over all `references` pictures. */
  meanDistance: number;
  references: number;
}

/**
 * The band of a face against one identity, in a gallery of `gallerySize` enrolled faces. An
 * identity with one picture is judged by that distance; one with several by the mean over all of
 * them (a stranger rarely resembles every picture of a person: ADR 0026's second stage), with
 * the edges of the whole gallery, so the false matches one check may expect stay within budget
 * whatever mix of identities is enrolled.
 */
export function bandOf(
  comparison: FaceComparison,
  gallerySize: number,
): Exclude<LikenessBand, 'unavailable'> {
  return comparison.references <= 1
    ? faceBandOf(comparison.distance, gallerySize)
    : faceBandOf(comparison.meanDistance, gallerySize, Math.min(comparison.references, MOST_REFERENCES));
}

/** The distance a comparison is judged on (the mean for several pictures). */
export function judgedDistanceOf(comparison: FaceComparison): number {
  return comparison.references <= 1 ? comparison.distance : comparison.meanDistance;
}

/** A face's likeness, 0..1 (1: the same face): a match scores at least 0.80, a review at least 0.62. */
export function likenessScoreOf(distance: number): number {
  return scoreOf(distance);
}
