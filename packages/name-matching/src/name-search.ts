import type { MatchResult } from './match-result';
import type { NormalisedName } from './normalise-name';
import type { EnforcementLevel } from './thresholds';

// What a name search takes and answers, a reading of a query as searched, and the state of one search.

export interface MatchOptions {
  enforcement: EnforcementLevel;
}

/** Where the checked text comes from: an avatar's name, or its free-text description. */
export type SearchMode = 'name' | 'description';

/** The best accepted match, and the highest score of any candidate (a near miss shows there). */
export interface SearchOutcome {
  best: MatchResult | null;
  bestScore: number;
}

/**
 * The layout of the index's arrays and the rules that filled them (normalisation, keys). A
 * snapshot of another version is rebuilt, never loaded: bump it with any change to either.
 */
export const NAME_INDEX_VERSION = 7;

/** Every flat array of the index, as a snapshot stores it. */
export type NameIndexParts = Record<string, Uint32Array | Buffer>;

/** One reading of a query as searched: its words (at most MAX_QUERY_TOKENS) and its compact form. */
export interface SearchedReading {
  words: string[];
  reading: NormalisedName;
}

/**
 * Work done by the searches so far (a figure that does not depend on the machine's load, for
 * bench/detection): protected words followed, postings read, names whose words were read for
 * an exact bound, names scored, word pairs compared.
 */
export interface SearchWork {
  searches: number;
  tokensVisited: number;
  postingsRead: number;
  namesBounded: number;
  candidatesScored: number;
  wordComparisons: number;
}

/** The state of one search: caches per query word, the best so far, the entries already scored. */
export interface Search {
  words: string[];
  mode: SearchMode;
  accept: ((result: MatchResult) => boolean) | undefined;
  /** The lowest confidence `accept` may take (0 when unknown). */
  acceptsFrom: number;
  best: MatchResult | null;
  bestScore: number;
  relations: Map<number, number>;
  codes: Map<string, string[]>;
  /** Per query word, 1 when it is a known name itself: a common name, or a protected name's word. */
  knownNames: Uint8Array;
  /** The identity (its slot) the search is limited to, or -1 for every identity. */
  only: number;
}
