import type { LikenessBand, MatchLayer } from '@svc/contracts/common';
import type { Action } from './action';
import type { IndexedIdentity } from './identity';
import type { ItemImageError } from './checked-input';

// What an identity check finds and answers: candidates, detections, likeness and the outcome.

export type Layer = 0 | 1 | 2 | 3 | 4 | 5 | 6;
export type Classification =
  | 'NO_MATCH'
  | 'EXACT_MATCH'
  | 'VARIATION_MATCH'
  | 'FUZZY_MATCH'
  | 'PHONETIC_MATCH'
  | 'IMAGE_MATCH'
  | 'FACE_MATCH';

/** What the faces of a checked picture showed (docs/spec/contracts.md §15). */
export interface Likeness {
  score: number;
  band: LikenessBand;
  faces: number;
}

/** One identity that the name, the picture or a face matched, with how. */
export interface Candidate {
  identity: IndexedIdentity;
  confidence: number;
  layer: Layer;
  classification: Classification;
  matchLayer: MatchLayer;
  matchedVariations: string[];
  imageMatchScore: number | null;
  /** The face's likeness when a face matched this identity. */
  likenessScore: number | null;
}

/** What the matching found for one name (and picture). */
export interface Detection {
  identity: IndexedIdentity | null;
  confidence: number;
  layer: Layer;
  classification: Classification;
  matchLayer: MatchLayer | null;
  matchedVariations: string[];
  imageMatchScore: number | null;
  likenessScore: number | null;
  /** The best score of any candidate, matched or not (docs/spec/contracts.md §13, §15: near misses show). */
  bestScore: number;
  /** Present whenever a picture was checked. */
  likeness: Likeness | null;
  /** Every identity matched, the chosen one first once `choose` has run. */
  candidates: Candidate[];
  /** The enrolled faces the likeness rests on (band match or review): confirmed before an answer. */
  faceSightings: { claimId: string; imageId: string }[];
}

export interface CheckInput {
  name: string;
  imageUrl?: string | undefined;
  description?: string | undefined;
  context?: string | undefined;
}

/** Another identity that matched too, not the one chosen (docs/spec/contracts.md §15). */
export interface OtherMatch {
  claimId: string;
  boxId: string | null;
  layer: MatchLayer;
  score: number;
}

export interface CheckOutcome extends Detection {
  parodyLikelihood: number;
  action: Action;
  otherMatches: OtherMatch[];
  /** Batch items only: the picture could not be checked, the result stands on the name. */
  imageError?: ItemImageError;
}
