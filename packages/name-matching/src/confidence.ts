import { levenshtein, metaphoneCodes } from '@svc/text-keys';

/** How one query token relates to one protected token. */
export type TokenRelation = 'exact' | 'fuzzy' | 'phonetic';

export interface TokenSimilarity {
  relation: TokenRelation;
  score: number;
}

/** Tokens shorter than this only match exactly or by sound: one edit changes too much of them. */
export const MIN_FUZZY_LENGTH = 4;

/** Penalties applied to the product of token scores (documented in the README). */
export const PENALTY = {
  variation: 0.97,
  reordered: 0.9,
  extraToken: 0.9,
  singleTokenName: 0.9,
  /** Middle words of a protected name of three or more words left out ("Grace Hopper"). */
  leftOut: 0.85,
} as const;

/** Optimal string alignment distance: Levenshtein, with a swap of two adjacent letters costing 1. */
export function editDistance(a: string, b: string): number {
  const d = levenshtein(a, b);
  if (d === 2 && a.length === b.length && isAdjacentSwap(a, b)) return 1;
  return d;
}

function isAdjacentSwap(a: string, b: string): boolean {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return i + 1 < a.length && a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2);
}

/** The Double Metaphone codes of a token (primary and, when different, secondary). */
export function phoneticCodes(token: string): string[] {
  const [primary, secondary] = metaphoneCodes(token);
  const codes = primary === secondary ? [primary] : [primary, secondary];
  return codes.filter((c) => c.length > 0);
}

/**
 * Score of a query token against a protected token, or null when they are not alike.
 * exact 1; one edit 1 - 0.6/length (0.85 for 4 letters, 0.9 for 6); same Double Metaphone code
 * with at most a third of the letters edited (Tyler/Taylor) 0.88 - 0.04 per edit, at least 0.7.
 * `soundsAlike` is passed when the caller already knows whether the codes meet.
 */
export function tokenSimilarity(
  query: string,
  target: string,
  soundsAlike?: boolean,
): TokenSimilarity | null {
  if (query === target) return { relation: 'exact', score: 1 };
  const longest = Math.max(query.length, target.length);
  const maxPhoneticEdits = Math.max(1, Math.floor(longest / 3));
  if (Math.abs(query.length - target.length) > maxPhoneticEdits) return null;
  const d = editDistance(query, target);
  if (d === 1 && longest >= MIN_FUZZY_LENGTH) return { relation: 'fuzzy', score: 1 - 0.6 / longest };
  if (d <= maxPhoneticEdits && (soundsAlike ?? soundAlike(query, target))) {
    return { relation: 'phonetic', score: Math.max(0.7, 0.88 - 0.04 * d) };
  }
  return null;
}

function soundAlike(a: string, b: string): boolean {
  if (a.length < 2 || b.length < 2) return false;
  const codesOfB = phoneticCodes(b);
  return phoneticCodes(a).some((code) => codesOfB.includes(code));
}

/** Rounded so that the same input always reports the same figure. */
export function roundConfidence(value: number): number {
  return Math.round(value * 10000) / 10000;
}
