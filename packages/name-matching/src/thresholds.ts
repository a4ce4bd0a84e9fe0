/** A box's enforcement level (docs/spec/contracts.md §8): STRICT matches most, RELAXED least. */
export type EnforcementLevel = 'STRICT' | 'MODERATE' | 'RELAXED';

/**
 * Lowest confidence that counts as a match, per enforcement level. Calibrated on the labelled set
 * (test/fixtures): MODERATE keeps recall ≥ 0.98 at precision ≥ 0.995 per disguise and takes a name
 * with its middle words left out (0.85); STRICT also takes a phonetic match on a short token or a
 * typo in a one-word name; RELAXED only takes exact, variation and single-typo matches on longer
 * tokens, a swap or a middle word added.
 */
export const MATCH_THRESHOLDS: Readonly<Record<EnforcementLevel, number>> = {
  STRICT: 0.7,
  MODERATE: 0.78,
  RELAXED: 0.86,
};

/** Whether a confidence counts as a match at this enforcement level. */
export function isAboveThreshold(confidence: number, enforcement: EnforcementLevel): boolean {
  return confidence >= MATCH_THRESHOLDS[enforcement];
}
