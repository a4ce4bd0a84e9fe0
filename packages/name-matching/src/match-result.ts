/** Detection layers, reported in detection.layer and detection.classification. */
export type MatchLayer = 1 | 2 | 3 | 4;

export type MatchClassification = 'EXACT_MATCH' | 'VARIATION_MATCH' | 'FUZZY_MATCH' | 'PHONETIC_MATCH';

export const CLASSIFICATION_OF_LAYER: Readonly<Record<MatchLayer, MatchClassification>> = {
  1: 'EXACT_MATCH',
  2: 'VARIATION_MATCH',
  3: 'FUZZY_MATCH',
  4: 'PHONETIC_MATCH',
};

/** A protected identity: its primary name first, then its variations (spellings, nicknames). */
export interface ProtectedIdentity {
  id: string;
  names: string[];
}

/** The best match of a checked name; confidence is 0..1 and the same for the same input. */
export interface MatchResult {
  identityId: string;
  matchedName: string;
  confidence: number;
  layer: MatchLayer;
  classification: MatchClassification;
}
