import { bandOf } from './likeness';

// Distributions of distances in a few numbers, and how well the bands sort a set of pairs.

/** A distribution in a few numbers. */
export interface DistanceSummary {
  count: number;
  min: number;
  p01: number;
  p05: number;
  p25: number;
  p50: number;
  p75: number;
  p95: number;
  max: number;
}

/** The minimum, percentiles (nearest rank) and maximum of some distances. */
export function summarise(values: readonly number[]): DistanceSummary {
  const sorted = [...values].sort((a, b) => a - b);
  const at = (p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? NaN;
  return {
    count: sorted.length,
    min: sorted[0] ?? NaN,
    p01: at(0.01),
    p05: at(0.05),
    p25: at(0.25),
    p50: at(0.5),
    p75: at(0.75),
    p95: at(0.95),
    max: sorted[sorted.length - 1] ?? NaN,
  };
}

/** How the bands sort some pairs: precision of `match`, recall of `match` and of `match` + `review`. */
export interface BandQuality {
  genuine: number;
  impostors: number;
  /** Genuine pairs in the match band. */
  matched: number;
  /** Impostor pairs in the match band. */
  falseMatches: number;
  /** Impostor pairs in the review band. */
  falseReviews: number;
  /** matched / (matched + falseMatches); 1 when nothing matched. */
  precision: number;
  recallMatch: number;
  recallMatchOrReview: number;
}

/** The bands' quality on these pairs, each pair taken as one comparison in a gallery of `gallerySize`. */
export function bandQuality(
  genuine: readonly number[],
  impostor: readonly number[],
  gallerySize = 1,
): BandQuality {
  const bands = (ds: readonly number[]) => ds.map((d) => bandOf(d, gallerySize));
  const g = bands(genuine);
  const i = bands(impostor);
  const matched = g.filter((b) => b === 'match').length;
  const reviewed = g.filter((b) => b === 'review').length;
  const falseMatches = i.filter((b) => b === 'match').length;
  return {
    genuine: genuine.length,
    impostors: impostor.length,
    matched,
    falseMatches,
    falseReviews: i.filter((b) => b === 'review').length,
    precision: matched + falseMatches === 0 ? 1 : matched / (matched + falseMatches),
    recallMatch: genuine.length === 0 ? NaN : matched / genuine.length,
    recallMatchOrReview: genuine.length === 0 ? NaN : (matched + reviewed) / genuine.length,
  };
}
