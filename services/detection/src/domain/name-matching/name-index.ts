import {
  MIN_FUZZY_LENGTH,
  PENALTY,
  phoneticCodes,
  roundConfidence,
  tokenSimilarity,
  type TokenSimilarity,
} from './confidence';
import {
  CLASSIFICATION_OF_LAYER,
  type MatchLayer,
  type MatchResult,
  type ProtectedIdentity,
} from './match-result';
import { normaliseName, normaliseProtectedName } from './normalise-name';
import { isAboveThreshold, type EnforcementLevel } from './thresholds';

interface NameEntry {
  identityId: string;
  text: string;
  compact: string;
  tokens: number[];
  isPrimary: boolean;
}

/** Query token -> protected token id -> how alike they are. */
type TokenCandidates = Map<number, TokenSimilarity>;

export interface MatchOptions {
  enforcement: EnforcementLevel;
}

/** Shortest piece when a one-word query ("TaylorSwfit") is tried as two words. */
const MIN_SPLIT_PART = 3;

function pushTo<K>(map: Map<K, number[]>, key: K, value: number): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function removeFrom<K>(map: Map<K, number[]>, key: K, value: number): void {
  const list = map.get(key);
  if (!list) return;
  const at = list.indexOf(value);
  if (at >= 0) list.splice(at, 1);
  if (list.length === 0) map.delete(key);
}

/** A word and each way of deleting one of its letters (symmetric deletion: one edit either side meets). */
function deletionKeys(token: string): string[] {
  const keys = new Set([token]);
  if (token.length >= MIN_FUZZY_LENGTH - 1) {
    for (let i = 0; i < token.length; i++) keys.add(token.slice(0, i) + token.slice(i + 1));
  }
  return [...keys];
}

/** Orders results: higher confidence, then lower layer, then identity id and name (deterministic). */
function isBetter(a: MatchResult, b: MatchResult | null): boolean {
  if (!b) return true;
  if (a.confidence !== b.confidence) return a.confidence > b.confidence;
  if (a.layer !== b.layer) return a.layer < b.layer;
  if (a.identityId !== b.identityId) return a.identityId < b.identityId;
  return a.matchedName < b.matchedName;
}

const PERMUTATIONS: Readonly<Record<number, number[][]>> = {
  2: [[1, 0]],
  3: [
    [0, 2, 1],
    [1, 0, 2],
    [1, 2, 0],
    [2, 0, 1],
    [2, 1, 0],
  ],
};

/**
 * In-memory index of protected names. Candidates come from posting lists, never from a scan:
 * whole normalised names (exact and variation layers), and per word a symmetric one-deletion index
 * (fuzzy layer) and Double Metaphone codes (phonetic layer) leading to the names holding that word.
 */
export class NameIndex {
  private readonly entries: (NameEntry | undefined)[] = [];
  private readonly entriesOfIdentity = new Map<string, number[]>();
  private readonly byCompact = new Map<string, number[]>();
  private readonly vocabulary = new Map<string, number>();
  private readonly tokenText: string[] = [];
  private readonly postings: number[][] = [];
  private readonly byDeletion = new Map<string, number[]>();
  private readonly byPhonetic = new Map<string, number[]>();

  /** Number of identities held. */
  get size(): number {
    return this.entriesOfIdentity.size;
  }

  /** Adds an identity (primary name first, then variations); adding a known id replaces it. */
  add(identity: ProtectedIdentity): void {
    this.remove(identity.id);
    const ids: number[] = [];
    const seen = new Set<string>();
    identity.names.forEach((text, position) => {
      const normalised = normaliseProtectedName(text);
      if (!normalised || seen.has(normalised.compact + '|' + normalised.tokens.join(' '))) return;
      seen.add(normalised.compact + '|' + normalised.tokens.join(' '));
      const entryId = this.entries.length;
      const tokens = normalised.tokens.map((t) => this.tokenId(t));
      this.entries.push({
        identityId: identity.id,
        text,
        compact: normalised.compact,
        tokens,
        isPrimary: position === 0,
      });
      pushTo(this.byCompact, normalised.compact, entryId);
      for (const token of new Set(tokens)) this.postingsOf(token).push(entryId);
      ids.push(entryId);
    });
    this.entriesOfIdentity.set(identity.id, ids);
  }

  /** Removes an identity; unknown ids are ignored. */
  remove(identityId: string): void {
    const ids = this.entriesOfIdentity.get(identityId);
    if (!ids) return;
    for (const entryId of ids) {
      const entry = this.entries[entryId];
      if (!entry) continue;
      removeFrom(this.byCompact, entry.compact, entryId);
      for (const token of new Set(entry.tokens)) {
        const list = this.postingsOf(token);
        const at = list.indexOf(entryId);
        if (at >= 0) list.splice(at, 1);
      }
      this.entries[entryId] = undefined;
    }
    this.entriesOfIdentity.delete(identityId);
  }

  /** The best match at or above the enforcement level's threshold, or null. */
  match(query: string, options: MatchOptions): MatchResult | null {
    const best = this.bestMatch(query);
    return best && isAboveThreshold(best.confidence, options.enforcement) ? best : null;
  }

  /**
   * The best-scoring protected name whatever its confidence (for calibration), or null. With
   * `accept`, only results it accepts count (each identity's own threshold, one box only).
   */
  bestMatch(query: string, accept?: (result: MatchResult) => boolean): MatchResult | null {
    let best: MatchResult | null = null;
    const consider = (candidate: MatchResult | null): void => {
      if (candidate && isBetter(candidate, best) && (accept === undefined || accept(candidate)))
        best = candidate;
    };
    const cache = new Map<string, TokenCandidates>();
    for (const reading of normaliseName(query)) {
      for (const entryId of this.byCompact.get(reading.compact) ?? []) {
        const entry = this.entries[entryId];
        if (!entry) continue;
        consider(this.result(entry, entry.isPrimary ? 1 : 2, entry.isPrimary ? 1 : PENALTY.variation));
      }
      if ((best as MatchResult | null)?.confidence === 1) return best;
      for (const words of this.segmentations(reading.tokens, reading.compact)) {
        const candidates = words.map((w) => this.candidatesOf(w, cache));
        for (const entryId of this.candidateEntries(candidates)) {
          const entry = this.entries[entryId];
          consider(entry ? this.score(entry, candidates) : null);
        }
      }
    }
    return best;
  }

  private tokenId(token: string): number {
    const known = this.vocabulary.get(token);
    if (known !== undefined) return known;
    const id = this.tokenText.length;
    this.vocabulary.set(token, id);
    this.tokenText.push(token);
    this.postings.push([]);
    for (const key of deletionKeys(token)) pushTo(this.byDeletion, key, id);
    for (const code of phoneticCodes(token)) pushTo(this.byPhonetic, code, id);
    return id;
  }

  private postingsOf(token: number): number[] {
    const list = this.postings[token];
    if (!list) throw new Error(`unknown token ${token}`);
    return list;
  }

  /** The words as given; a one-word query is also tried cut in two ("taylorswfit"). */
  private segmentations(tokens: string[], compact: string): string[][] {
    const out = [tokens];
    if (tokens.length === 1) {
      for (let cut = MIN_SPLIT_PART; cut <= compact.length - MIN_SPLIT_PART; cut++) {
        out.push([compact.slice(0, cut), compact.slice(cut)]);
      }
    }
    return out;
  }

  /** Protected words alike to a query word, found through the deletion and phonetic posting lists. */
  private candidatesOf(word: string, cache: Map<string, TokenCandidates>): TokenCandidates {
    const cached = cache.get(word);
    if (cached) return cached;
    const found: TokenCandidates = new Map();
    const seen = new Set<number>();
    const consider = (tokenIds: readonly number[] | undefined, soundsAlike: boolean): void => {
      for (const id of tokenIds ?? []) {
        if (seen.has(id)) continue;
        seen.add(id);
        const similarity = tokenSimilarity(word, this.tokenText[id] ?? '', soundsAlike);
        if (similarity) found.set(id, similarity);
      }
    };
    // Sound-alikes first: a word met again through the deletion index is then already scored.
    for (const code of phoneticCodes(word)) consider(this.byPhonetic.get(code), true);
    for (const key of deletionKeys(word)) consider(this.byDeletion.get(key), false);
    cache.set(word, found);
    return found;
  }

  /**
   * Names holding a word alike to the rarest query word. A name of three or more words may also
   * skip one query word (a middle name), so there the two rarest are taken: one of them is always
   * among its words.
   */
  private candidateEntries(candidates: TokenCandidates[]): Set<number> {
    const sizes = candidates
      .map((tokens, position) => {
        let total = 0;
        for (const id of tokens.keys()) total += this.postings[id]?.length ?? 0;
        return { position, total, empty: tokens.size === 0 };
      })
      .sort((a, b) => a.total - b.total || a.position - b.position);
    const empty = sizes.filter((s) => s.empty).length;
    if (empty > 1 || (empty === 1 && candidates.length < 3)) return new Set();
    const out = new Set<number>();
    for (const { position } of sizes.filter((s) => !s.empty).slice(0, candidates.length >= 3 ? 2 : 1)) {
      for (const id of candidates[position]?.keys() ?? []) {
        for (const entryId of this.postings[id] ?? []) out.add(entryId);
      }
    }
    return out;
  }

  /** Scores a name against the query words: in order, reordered, or with one extra middle word. */
  private score(entry: NameEntry, candidates: TokenCandidates[]): MatchResult | null {
    const m = entry.tokens.length;
    const k = candidates.length;
    let best: { product: number; phonetic: boolean } | null = null;
    const consider = (order: readonly number[], penalty: number): void => {
      const s = this.orderedProduct(
        entry.tokens,
        order.map((i) => candidates[i]),
      );
      if (s && (!best || s.product * penalty > best.product)) {
        best = { product: s.product * penalty, phonetic: s.phonetic };
      }
    };
    if (m === k) {
      consider(
        entry.tokens.map((_, i) => i),
        1,
      );
      for (const order of PERMUTATIONS[m] ?? []) consider(order, PENALTY.reordered);
    } else if (m === k - 1 && m >= 2) {
      for (let skip = 1; skip < k - 1; skip++) {
        consider(
          [...Array(k).keys()].filter((i) => i !== skip),
          PENALTY.extraToken,
        );
      }
    }
    const found = best as { product: number; phonetic: boolean } | null;
    if (!found) return null;
    let confidence = found.product * (entry.isPrimary ? 1 : PENALTY.variation);
    if (m === 1) confidence *= PENALTY.singleTokenName;
    return this.result(entry, found.phonetic ? 4 : 3, confidence);
  }

  private orderedProduct(
    tokens: readonly number[],
    candidates: readonly (TokenCandidates | undefined)[],
  ): { product: number; phonetic: boolean } | null {
    let product = 1;
    let phonetic = false;
    for (let i = 0; i < tokens.length; i++) {
      const token = tokens[i];
      const similarity = token === undefined ? undefined : candidates[i]?.get(token);
      if (!similarity) return null;
      product *= similarity.score;
      phonetic ||= similarity.relation === 'phonetic';
    }
    return { product, phonetic };
  }

  private result(entry: NameEntry, layer: MatchLayer, confidence: number): MatchResult {
    return {
      identityId: entry.identityId,
      matchedName: entry.text,
      confidence: roundConfidence(confidence),
      layer,
      classification: CLASSIFICATION_OF_LAYER[layer],
    };
  }
}
