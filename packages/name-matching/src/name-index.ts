// Over 300 lines on purpose (issue #33 allows ten such files, each with its reason): NameIndex is one
// class whose scoring and ranked search (scoreEntry, relation, boundOf, rankedByWords) read its
// private typed arrays and the module's constants in their inner loops, measured per check in
// bench/detection (ADR 0007). Split into several classes or functions handed a state object, those
// loops would read through one more indirection per access (and imported constants become property
// loads in CommonJS); what could leave without touching them has left (name-search.ts,
// compact-tables.ts and its modules, token-rules.ts, confidence.ts).
import { COMMON_NAMES } from './common-names';
import { phoneticCodes, PENALTY, roundConfidence } from './confidence';
import {
  GrowableUint32,
  type IntMultiMap,
  type StringTable,
  ByteArena,
  hash32,
  snapshotReader,
} from './compact-tables';
import {
  CLASSIFICATION_OF_LAYER,
  type MatchLayer,
  type MatchResult,
  type ProtectedIdentity,
} from './match-result';
import { normaliseName, normaliseProtectedName, type NormalisedName } from './normalise-name';
import { isAboveThreshold } from './thresholds';
import {
  boundedEditDistance,
  CONTEXT_WORDS,
  deletionKeys,
  editsAllowedIn,
  MIN_DELETION_LENGTH,
  nameEditBudget,
} from './token-rules';
import type {
  MatchOptions,
  SearchMode,
  SearchOutcome,
  NameIndexParts,
  SearchedReading,
  SearchWork,
  Search,
} from './name-search';
export {
  type MatchOptions,
  type SearchMode,
  type SearchOutcome,
  NAME_INDEX_VERSION,
  type NameIndexParts,
  type SearchedReading,
  type SearchWork,
} from './name-search';

/** Shortest piece when a one-word query ("TaylorSwfit") is tried as two words. */
const MIN_SPLIT_PART = 3;
/** Words of a checked text looked at (a description may be long; a name is never this long). */
const MAX_QUERY_TOKENS = 64;
/** Longest run of query words joined to meet a protected name written without spaces. */
export const MAX_JOINED_WORDS = 6;
/** Protected words followed from one sound-alike code (a common code is shared by thousands). */
const MAX_SOUND_ALIKE_TOKENS = 64;
/** A protected name found inside a longer one ("X Official", "The Real X"). */
const WRAPPED = 0.96;
const PRIMARY = 1;
/**
 * A name whose words were split at a hyphen ("Zeta-Jones", "Ji-sung"): its words are one name,
 * so none of them is a middle word that may be left out ("Catherine Jones" is someone else).
 */
const HYPHENATED = 2;
/*
 * EVIDENCE (issue "Names: recall kept, precision back"): a word weighs by how distinctive it is,
 * as in entity resolution. A common word (COMMON_NAMES, or one held by many protected names) says
 * little about who is named, so edits are granted only where the rest of the name has evidence:
 * - a query word that is another known name (common, or a word of any protected name) two edits
 *   from a protected word, not sounding like it, is not alike at all ("Perez" for "Lopez");
 * - one edit that makes another known name, not sounding the same, or two that make one sounding
 *   the same, need another distinctive word within one edit ("Wang Yang" is not "Wang Fang",
 *   "Ali Hassoun" not "Ali Hassan"; "Tyler Swift", "Kobe Bryan" match);
 * - two edits in a common word of SHORT_FOR_TWO_EDITS letters or fewer, or any edit when the
 *   words are reordered, a middle word added or middle words left out, need a distinctive word
 *   written out exactly ("Rohit Sharma" is not "Rohan Sharma");
 * - an edit in a word of SHORT_FOR_ONE_EDIT letters or fewer needs another word within one edit
 *   that is distinctive, or two other words within one edit ("Zhang Wen" is not "Zhang Wei",
 *   "Tran Anr Hung" is "Tran Anh Hung").
 */
const SHORT_FOR_TWO_EDITS = 5;
const SHORT_FOR_ONE_EDIT = 3;
/** Longest protected name whose middle words may be left out (every subset of them is tried). */
const MAX_LEAVE_OUT_WORDS = 6;
const HYPHEN_BETWEEN_LETTERS = /\p{L}-\p{L}/u;
const HYPHENS_BETWEEN_LETTERS = /(\p{L})-(\p{L})/gu;
/**
 * A word held by this many protected names or more (and by at least this share of them) is
 * common, as are the words of COMMON_NAMES: a match resting on it carries little evidence.
 */
const COMMON_MIN_NAMES = 50;
const COMMON_SHARE = 1 / 500;
/** The highest factor a word alike only by sound can score (PHONETIC and SOUNDS_ALIKE below). */
const FAR_FACTOR = 0.88;
/** Reported confidences are rounded to 4 places: a bound must clear them by more than that. */
const BOUND_MARGIN = 1e-4;
/**
 * Words this short may be near a query word without leading to candidates (generic and short
 * query words do not): a name's shape counts them, so that its bound stays an upper bound.
 */
const SHORT_WORD = 4;
/** Postings read to count the near words of a name that lead nowhere (see rankedByWords). */
const UNLED_POSTINGS_BUDGET = 4096;
/** Steps of the candidates' bounds when they are sorted (a bound is rounded up to one). */
const BOUND_STEPS = 65536;
const TWO_TO_32 = 4294967296;
/** Candidates bounded at or below this are sorted apart, after the others (rankedByWords). */
const LOW_TIER = FAR_FACTOR;
const FAR_FACTOR_POWERS = Array.from({ length: 65 }, (_, i) => FAR_FACTOR ** i);
/** FAR_FACTOR to the power `n` (a table: bounds are computed for every candidate). */
function farFactorTo(n: number): number {
  return FAR_FACTOR_POWERS[n] ?? FAR_FACTOR ** n;
}

/*
 * A name's shape, one 32-bit word beside its first token's position (entryInfo): what its score
 * bound needs without reading its words. Letters (bits 0-13), words (14-19), distinct words
 * (20-25), distinct words of SHORT_WORD letters or fewer (26-28), primary (29); bit 30 says a
 * field did not fit (the bound is then 1, still an upper bound).
 */
const SHAPE_PRIMARY = 1 << 29;
const SHAPE_OVERFLOW = 1 << 30;

export function packShape(
  letters: number,
  words: number,
  distinct: number,
  short: number,
  primary: boolean,
): number {
  const overflow = letters > 0x3fff || words > 0x3f || distinct > 0x3f || short > 0x7;
  return (
    ((letters & 0x3fff) |
      ((words & 0x3f) << 14) |
      ((distinct & 0x3f) << 20) |
      ((short & 0x7) << 26) |
      (primary ? SHAPE_PRIMARY : 0) |
      (overflow ? SHAPE_OVERFLOW : 0)) >>>
    0
  );
}

/*
 * The same shape in 16 bits when its fields are small (nearly every name): letters (bits 0-5),
 * words (6-8), distinct words (9-11), short words (12-13), primary (14); bit 15 says "read the
 * full shape". A quarter of the bytes entryInfo takes to reach when thousands of names are
 * bounded, so more of them are found in the processor's cache.
 */
export const COMPACT_FULL = 1 << 15;

export function compactShapeOf(shape: number): number {
  const letters = shape & 0x3fff;
  const words = (shape >>> 14) & 0x3f;
  const distinct = (shape >>> 20) & 0x3f;
  const short = (shape >>> 26) & 0x7;
  if ((shape & SHAPE_OVERFLOW) !== 0 || letters > 0x3f || words > 7 || distinct > 7 || short > 3) {
    return COMPACT_FULL;
  }
  return (
    letters | (words << 6) | (distinct << 9) | (short << 12) | ((shape & SHAPE_PRIMARY) !== 0 ? 1 << 14 : 0)
  );
}

/** The full shape (packShape) of a compact one that is not COMPACT_FULL. */
export function shapeOfCompact(compact: number): number {
  return (
    ((compact & 0x3f) |
      (((compact >>> 6) & 7) << 14) |
      (((compact >>> 9) & 7) << 20) |
      (((compact >>> 12) & 3) << 26) |
      ((compact & (1 << 14)) !== 0 ? SHAPE_PRIMARY : 0)) >>>
    0
  );
}

const PERMUTATIONS: Readonly<Record<number, readonly (readonly number[])[]>> = {
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
 * How one protected word relates to one query word: NOT_ALIKE; 0..2 edits; SOUNDS_ALIKE + edits
 * (two edits that also sound the same, "Tyler" for "Taylor": counted as edits, reported as
 * phonetic); PHONETIC + edits (further off but the same sound, scored by the phonetic factor).
 */
const NOT_ALIKE = -1;
const SOUNDS_ALIKE = 8;
const PHONETIC = 16;
/** A flag on a relation: the query word is another known name (see relation). */
const OTHER_NAME = 1 << 16;

/** Orders results: higher confidence, then lower layer, then identity id and name (deterministic). */
function isBetter(a: MatchResult, b: MatchResult | null): boolean {
  if (!b) return true;
  if (a.confidence !== b.confidence) return a.confidence > b.confidence;
  if (a.layer !== b.layer) return a.layer < b.layer;
  if (a.identityId !== b.identityId) return a.identityId < b.identityId;
  return a.matchedName < b.matchedName;
}

/**
 * Whether a protected name of `m` words may match with middle words left out: three words or more
 * (up to MAX_LEAVE_OUT_WORDS), in a name (a description names people in full), by two words at
 * least. A bound may take it as possible for a hyphenated name too (it stays an upper bound).
 */
function mayLeaveOut(search: Search, m: number): boolean {
  return search.mode === 'name' && m >= 3 && m <= MAX_LEAVE_OUT_WORDS && search.words.length >= 2;
}

const EVERY_WORD: number[][] = [];
/** 0 .. m - 1: the positions of every word of a name of m words (made once per m). */
function everyWord(m: number): readonly number[] {
  let words = EVERY_WORD[m];
  if (!words) EVERY_WORD[m] = words = [...Array(m).keys()];
  return words;
}

const LEFT_OUT_WORDS: number[][][] = [];
/**
 * The words kept of a name of m words (3..MAX_LEAVE_OUT_WORDS) when one or more of its middle
 * words are left out: the first, the last and each subset of the middle ones but all of them.
 */
function leftOutWords(m: number): readonly (readonly number[])[] {
  let subsets = LEFT_OUT_WORDS[m];
  if (!subsets) {
    subsets = [];
    for (let mask = 1; mask < 1 << (m - 2); mask++) {
      subsets.push(everyWord(m).filter((i) => i === 0 || i === m - 1 || (mask & (1 << (i - 1))) === 0));
    }
    LEFT_OUT_WORDS[m] = subsets;
  }
  return subsets;
}

/** The highest score of a name with middle words left out (see scoreEntry). */
function leftOutBound(primary: boolean): number {
  return PENALTY.leftOut * (primary ? 1 : PENALTY.variation);
}

/**
 * Every reading a search looks up, in order: each normalisation of the query and of the query with
 * its hyphens between letters removed ("Kang-ho" may stand for the protected "Kangho" as well as
 * "Kang Ho"), and for a one-word name each way of cutting it into two words ("TaylorSwfit").
 */
export function searchedReadings(query: string, mode: SearchMode): SearchedReading[] {
  const joined = query.replace(HYPHENS_BETWEEN_LETTERS, '$1$2');
  const readings = normaliseName(query);
  if (joined !== query) readings.push(...normaliseName(joined));
  const out: SearchedReading[] = [];
  for (const reading of readings) {
    const words = reading.tokens.slice(0, MAX_QUERY_TOKENS);
    out.push({ words, reading });
    if (mode === 'name' && words.length === 1) {
      const [word = ''] = words;
      for (let cut = MIN_SPLIT_PART; cut <= word.length - MIN_SPLIT_PART; cut++) {
        const split = [word.slice(0, cut), word.slice(cut)];
        out.push({ words: split, reading: { tokens: split, compact: word } });
      }
    }
  }
  return out;
}

/**
 * Protected names in a compact, append-only index (ADR 0007): a token dictionary (StringTable),
 * token-level postings (token -> names holding it) so a protected name is found by its words
 * inside a longer one, a symmetric one-deletion index and Double Metaphone codes over the
 * dictionary (fuzzy and sound-alike word lookup), and the whole names without spaces. All of it
 * sits in typed arrays and Buffers. A name is scored against every window of the query's words;
 * two edits anywhere in a name of two or more words are allowed (a word with no more than a
 * third... see token-rules), and the other word always leads to it through the postings. Edits
 * are granted only beside words that carry evidence (EVIDENCE: how many protected names hold each
 * word is counted, derived like deadBits), and a name of three or more words also matches with
 * its middle words left out.
 */
export class NameIndex {
  private readonly tokens: StringTable;
  private readonly deletions: IntMultiMap;
  private readonly phonetic: IntMultiMap;
  private readonly postings: IntMultiMap;
  private readonly compacts: IntMultiMap;
  private readonly entryIdentity: GrowableUint32;
  private readonly entryTokenStart: GrowableUint32;
  private readonly entryTokenCount: GrowableUint32;
  private readonly entryFlags: GrowableUint32;
  private readonly entryTextOffset: GrowableUint32;
  private readonly entryTextLength: GrowableUint32;
  private readonly entryTokens: GrowableUint32;
  /** Per name, two words: its first token's position in entryTokens and its shape (packShape). */
  private readonly entryInfo: GrowableUint32;
  private readonly texts: ByteArena;
  private readonly identityIds: StringTable;
  private readonly identityFirstEntry: GrowableUint32;
  private readonly identityEntryCount: GrowableUint32;
  private live = 0;
  /**
   * One bit per stored name, set once the name is garbage (its identity was replaced or removed):
   * what isLive answers from one small array (512 KiB at 4M names) instead of three reads across
   * the per-name and per-identity arrays. Derived, not in the snapshot: filled when loaded.
   */
  private deadBits = new Uint32Array(0);
  /** Per stored name, its shape in 16 bits (compactShapeOf). Derived like deadBits. */
  private compactShapes = new Uint16Array(0);
  private stamps = new Uint32Array(0);
  private stamp = 0;
  /** Per word of the dictionary, the live names holding it (derived like deadBits). */
  private tokenNames = new Uint32Array(0);
  /** Per word of the dictionary, 1 when it is one of COMMON_NAMES (derived like deadBits). */
  private tokenListed = new Uint8Array(0);
  /** Scratch of one search: the postings read (names, repeated), the unled ones, the sort keys. */
  private readonly led = new GrowableUint32(1024);
  private readonly unled = new GrowableUint32(1024);
  private order = new Float64Array(1024);
  private lowOrder = new Float64Array(1024);
  /** Running totals of the work done by searches (see SearchWork); reset them at will. */
  readonly work: SearchWork = {
    searches: 0,
    tokensVisited: 0,
    postingsRead: 0,
    namesBounded: 0,
    candidatesScored: 0,
    wordComparisons: 0,
  };

  /**
   * False: every candidate the words lead to is scored instead of ranking them first (the same
   * answers, more work): the same-run baseline bench/detection/name-index.bench.ts compares with.
   */
  rankCandidates = true;

  constructor(parts?: NameIndexParts) {
    const { u32, buf, table, multi } = snapshotReader(parts);
    this.tokens = table('tokens');
    this.identityIds = table('identities');
    this.deletions = multi('deletions');
    this.phonetic = multi('phonetic');
    this.postings = multi('postings');
    this.compacts = multi('compacts');
    this.entryIdentity = new GrowableUint32(1024, u32('entry.identity'));
    this.entryTokenStart = new GrowableUint32(1024, u32('entry.tokenStart'));
    this.entryTokenCount = new GrowableUint32(1024, u32('entry.tokenCount'));
    this.entryFlags = new GrowableUint32(1024, u32('entry.flags'));
    this.entryTextOffset = new GrowableUint32(1024, u32('entry.textOffset'));
    this.entryTextLength = new GrowableUint32(1024, u32('entry.textLength'));
    this.entryTokens = new GrowableUint32(1024, u32('entry.tokens'));
    const info = u32('entry.info');
    this.entryInfo = new GrowableUint32(1024, info);
    if (info === undefined || info.length !== this.entryIdentity.length * 2) this.fillEntryInfo();
    this.ensureCompactShapes(this.entryIdentity.length);
    for (let entry = 0; entry < this.entryIdentity.length; entry++) {
      this.compactShapes[entry] = compactShapeOf(this.entryInfo.get(entry * 2 + 1));
    }
    this.texts = new ByteArena(64 * 1024, buf('entry.texts'));
    this.identityFirstEntry = new GrowableUint32(1024, u32('identity.firstEntry'));
    this.identityEntryCount = new GrowableUint32(1024, u32('identity.entryCount'));
    for (let slot = 0; slot < this.identityEntryCount.length; slot++) {
      if (this.identityEntryCount.get(slot) > 0) this.live++;
    }
    this.ensureDeadBits(this.entryIdentity.length);
    for (let entry = 0; entry < this.entryIdentity.length; entry++) {
      const slot = this.entryIdentity.get(entry);
      const first = this.identityFirstEntry.get(slot);
      if (entry < first || entry >= first + this.identityEntryCount.get(slot)) this.markDead(entry);
    }
    this.ensureTokenArrays(this.tokens.size);
    for (let token = 0; token < this.tokens.size; token++) {
      this.tokenListed[token] = COMMON_NAMES.has(this.tokens.text(token)) ? 1 : 0;
    }
    for (let entry = 0; entry < this.entryIdentity.length; entry++) {
      if (this.isLive(entry)) this.countNames(entry, 1);
    }
  }

  /** Number of identities held. */
  get size(): number {
    return this.live;
  }

  /** Names held, garbage (replaced or removed names) included: what a rebuild would drop. */
  get storedNames(): number {
    return this.entryIdentity.length;
  }

  /** Distinct words of the dictionary. */
  get vocabularySize(): number {
    return this.tokens.size;
  }

  /** Bytes held in typed arrays and Buffers (capacity, not just use), derived ones included. */
  get bytes(): number {
    let total =
      this.deadBits.byteLength +
      this.compactShapes.byteLength +
      this.tokenNames.byteLength +
      this.tokenListed.byteLength;
    for (const part of Object.values(this.parts())) total += part.byteLength;
    return total;
  }

  /** Adds an identity (primary name first, then variations); adding a known id replaces it. */
  add(identity: ProtectedIdentity): void {
    const slot = this.identityIds.intern(identity.id);
    while (this.identityFirstEntry.length <= slot) {
      this.identityFirstEntry.push(0);
      this.identityEntryCount.push(0);
    }
    if (this.identityEntryCount.get(slot) > 0) {
      this.live--;
      this.markDeadRange(this.identityFirstEntry.get(slot), this.identityEntryCount.get(slot));
    }
    const first = this.entryIdentity.length;
    const seen = new Set<string>();
    const spellings = identity.names.flatMap(
      (text, position): { text: string; position: number; joined?: string }[] => {
        // "Joon-ho" is written "Joonho" as often as "Joon Ho": both spellings lead to the name.
        const joined = text.replace(HYPHENS_BETWEEN_LETTERS, '$1$2');
        return joined === text
          ? [{ text, position }]
          : [
              { text, position },
              { text, position, joined },
            ];
      },
    );
    const held = spellings.flatMap(({ text, position, joined }) =>
      normaliseProtectedName(joined ?? text).map((normalised) => ({
        text,
        position,
        normalised,
        hyphenated: joined === undefined && HYPHEN_BETWEEN_LETTERS.test(text),
      })),
    );
    held.forEach(({ text, position, normalised, hyphenated }) => {
      const key = normalised.compact + '|' + normalised.tokens.join(' ');
      if (seen.has(key)) return;
      seen.add(key);
      const entry = this.entryIdentity.push(slot);
      this.entryTokenStart.push(this.entryTokens.length);
      this.entryTokenCount.push(normalised.tokens.length);
      this.entryFlags.push((position === 0 ? PRIMARY : 0) | (hyphenated ? HYPHENATED : 0));
      const stored = this.texts.append(text);
      this.entryTextOffset.push(stored.offset);
      this.entryTextLength.push(stored.bytes);
      const distinct = new Set<number>();
      this.entryInfo.push(this.entryTokens.length);
      for (const token of normalised.tokens) {
        const id = this.tokenId(token);
        this.entryTokens.push(id);
        distinct.add(id);
      }
      const shape = this.shapeOf(entry);
      this.entryInfo.push(shape);
      this.ensureCompactShapes(entry + 1);
      this.compactShapes[entry] = compactShapeOf(shape);
      for (const id of distinct) this.postings.add(id, entry);
      this.compacts.add(hash32(normalised.compact), entry);
      this.countNames(entry, 1);
    });
    const count = this.entryIdentity.length - first;
    this.ensureDeadBits(this.entryIdentity.length);
    this.identityFirstEntry.set(slot, first);
    this.identityEntryCount.set(slot, count);
    if (count > 0) this.live++;
  }

  /**
   * Packs the word tables (IntMultiMap.pack): every lookup then reads runs of memory instead of
   * chains. Done after a load; what is added later goes into chains until the next pack.
   */
  pack(): void {
    this.deletions.pack();
    this.phonetic.pack();
    this.postings.pack();
    this.compacts.pack();
  }

  /** Share of the word tables' pairs added since they were last packed (0 to 1). */
  get unpackedShare(): number {
    const tables = [this.deletions, this.phonetic, this.postings, this.compacts];
    const total = tables.reduce((sum, t) => sum + t.size, 0);
    return total === 0 ? 0 : tables.reduce((sum, t) => sum + t.chained, 0) / total;
  }

  /** Removes an identity; unknown ids are ignored. */
  remove(identityId: string): void {
    const slot = this.identityIds.get(identityId);
    if (slot < 0 || this.identityEntryCount.get(slot) === 0) return;
    this.markDeadRange(this.identityFirstEntry.get(slot), this.identityEntryCount.get(slot));
    this.identityEntryCount.set(slot, 0);
    this.live--;
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
    return this.search(query, accept).best;
  }

  /**
   * The best accepted match and the best score of any candidate, in a name or a description.
   * `acceptsFrom`: the lowest confidence `accept` ever takes (each identity's threshold is one of
   * MATCH_THRESHOLDS), so that candidates that cannot reach it are not scored once a better one
   * has been; 0 when unknown.
   */
  search(
    query: string,
    accept?: (result: MatchResult) => boolean,
    mode: SearchMode = 'name',
    acceptsFrom = 0,
  ): SearchOutcome {
    return this.searchAmong(query, accept, mode, acceptsFrom, -1);
  }

  /**
   * The search of one identity's names (a box's initial scan asks about one box): the same answer
   * as `search` with an `accept` that takes only this identity, without reading the other names
   * the query's words lead to; `bestScore` is this identity's. Unknown or removed ids match nothing.
   */
  searchIdentity(
    query: string,
    identityId: string,
    accept?: (result: MatchResult) => boolean,
    mode: SearchMode = 'name',
  ): SearchOutcome {
    const slot = this.identityIds.get(identityId);
    if (slot < 0 || this.identityEntryCount.get(slot) === 0) return { best: null, bestScore: 0 };
    return this.searchAmong(query, accept, mode, 0, slot);
  }

  private searchAmong(
    query: string,
    accept: ((result: MatchResult) => boolean) | undefined,
    mode: SearchMode,
    acceptsFrom: number,
    only: number,
  ): SearchOutcome {
    const outcome: SearchOutcome = { best: null, bestScore: 0 };
    this.work.searches++;
    for (const { words, reading } of searchedReadings(query, mode))
      this.searchReading(this.newSearch(words, mode, accept, acceptsFrom, only), reading, outcome);
    return outcome;
  }

  /**
   * The live names of an identity as stored: each one's words and its compact form (the words
   * joined), which is what a query's words and runs are looked up by. Empty when unknown or removed.
   */
  storedNamesOf(identityId: string): { tokens: string[]; compact: string }[] {
    const slot = this.identityIds.get(identityId);
    if (slot < 0) return [];
    const first = this.identityFirstEntry.get(slot);
    const names: { tokens: string[]; compact: string }[] = [];
    for (let entry = first; entry < first + this.identityEntryCount.get(slot); entry++) {
      if (!this.isLive(entry)) continue;
      const start = this.entryTokenStart.get(entry);
      const tokens: string[] = [];
      for (let i = 0; i < this.entryTokenCount.get(entry); i++)
        tokens.push(this.tokens.text(this.entryTokens.get(start + i)));
      names.push({ tokens, compact: tokens.join('') });
    }
    return names;
  }

  /**
   * The index's flat arrays, for a snapshot: views of the append-only ones (what is written never
   * changes; growing moves later writes elsewhere) and copies of the two changed in place, so the
   * set stays as it was at this instant while it is written out.
   */
  parts(): NameIndexParts {
    const out: NameIndexParts = {};
    const table = (prefix: string, t: StringTable) => {
      out[`${prefix}.arena`] = t.arena.used();
      out[`${prefix}.offsets`] = t.offsets.used();
      out[`${prefix}.lengths`] = t.lengths.used();
      out[`${prefix}.hashes`] = t.hashes.used();
      out[`${prefix}.slots`] = t.slotsCopy();
    };
    const multi = (prefix: string, m: IntMultiMap) => {
      for (const [name, array] of Object.entries(m.parts())) out[`${prefix}.${name}`] = array;
    };
    table('tokens', this.tokens);
    table('identities', this.identityIds);
    multi('deletions', this.deletions);
    multi('phonetic', this.phonetic);
    multi('postings', this.postings);
    multi('compacts', this.compacts);
    out['entry.identity'] = this.entryIdentity.used();
    out['entry.tokenStart'] = this.entryTokenStart.used();
    out['entry.tokenCount'] = this.entryTokenCount.used();
    out['entry.flags'] = this.entryFlags.used();
    out['entry.textOffset'] = this.entryTextOffset.used();
    out['entry.textLength'] = this.entryTextLength.used();
    out['entry.tokens'] = this.entryTokens.used();
    out['entry.info'] = this.entryInfo.used();
    out['entry.texts'] = this.texts.used();
    out['identity.firstEntry'] = this.identityFirstEntry.used().slice();
    out['identity.entryCount'] = this.identityEntryCount.used().slice();
    return out;
  }

  private newSearch(
    words: string[],
    mode: SearchMode,
    accept: Search['accept'],
    acceptsFrom: number,
    only: number,
  ): Search {
    const knownNames = new Uint8Array(words.length);
    words.forEach((word, position) => {
      const token = this.tokens.get(word);
      const known = COMMON_NAMES.has(word) || (token >= 0 && (this.tokenNames[token] ?? 0) > 0);
      knownNames[position] = known ? 1 : 0;
    });
    return {
      words,
      mode,
      accept,
      acceptsFrom,
      best: null,
      bestScore: 0,
      relations: new Map(),
      codes: new Map(),
      knownNames,
      only,
    };
  }

  private tokenId(token: string): number {
    const known = this.tokens.get(token);
    if (known >= 0) return known;
    const id = this.tokens.intern(token);
    this.ensureTokenArrays(id + 1);
    this.tokenListed[id] = COMMON_NAMES.has(token) ? 1 : 0;
    for (const key of deletionKeys(token)) this.deletions.add(hash32(key), id);
    for (const code of phoneticCodes(token)) this.phonetic.add(hash32(code), id);
    return id;
  }

  /** The shape of a name already stored (see packShape). */
  private shapeOf(entry: number): number {
    const start = this.entryTokenStart.get(entry);
    const count = this.entryTokenCount.get(entry);
    const distinct = new Set<number>();
    let letters = 0;
    let short = 0;
    for (let i = 0; i < count; i++) {
      const token = this.entryTokens.get(start + i);
      const length = this.tokens.lengths.get(token);
      letters += length;
      if (distinct.has(token)) continue;
      distinct.add(token);
      if (length <= SHORT_WORD) short++;
    }
    return packShape(letters, count, distinct.size, short, (this.entryFlags.get(entry) & PRIMARY) !== 0);
  }

  /** entryInfo for a snapshot without it. */
  private fillEntryInfo(): void {
    this.entryInfo.length = 0;
    for (let entry = 0; entry < this.entryIdentity.length; entry++) {
      this.entryInfo.push(this.entryTokenStart.get(entry));
      this.entryInfo.push(this.shapeOf(entry));
    }
  }

  private isLive(entry: number): boolean {
    return ((this.deadBits[entry >>> 5] ?? 0) & (1 << (entry & 31))) === 0;
  }

  private markDead(entry: number): void {
    const word = entry >>> 5;
    this.deadBits[word] = (this.deadBits[word] ?? 0) | (1 << (entry & 31));
  }

  private markDeadRange(first: number, count: number): void {
    for (let entry = first; entry < first + count; entry++) {
      if (this.isLive(entry)) this.countNames(entry, -1);
      this.markDead(entry);
    }
  }

  /** Adds `delta` to the count of live names holding each distinct word of this name. */
  private countNames(entry: number, delta: number): void {
    const start = this.entryTokenStart.get(entry);
    const count = this.entryTokenCount.get(entry);
    this.ensureTokenArrays(this.tokens.size);
    for (let i = 0; i < count; i++) {
      const token = this.entryTokens.get(start + i);
      let repeated = false;
      for (let before = 0; before < i && !repeated; before++) {
        repeated = this.entryTokens.get(start + before) === token;
      }
      if (!repeated) this.tokenNames[token] = (this.tokenNames[token] ?? 0) + delta;
    }
  }

  /** Room for `tokens` words' counts and marks. */
  private ensureTokenArrays(tokens: number): void {
    if (tokens <= this.tokenNames.length) return;
    const size = Math.max(tokens, this.tokenNames.length * 2, 1024);
    const names = new Uint32Array(size);
    names.set(this.tokenNames);
    this.tokenNames = names;
    const listed = new Uint8Array(size);
    listed.set(this.tokenListed);
    this.tokenListed = listed;
  }

  /** How many live names make a word common (see COMMON_MIN_NAMES). */
  private commonFrom(): number {
    return Math.max(COMMON_MIN_NAMES, Math.ceil(this.live * COMMON_SHARE));
  }

  /** Whether a stored word is a common name: listed, or held by many protected names. */
  private isCommonToken(token: number, commonFrom: number): boolean {
    return this.tokenListed[token] === 1 || (this.tokenNames[token] ?? 0) >= commonFrom;
  }

  /** Room for `entries` names' compact shapes. */
  private ensureCompactShapes(entries: number): void {
    if (entries <= this.compactShapes.length) return;
    const next = new Uint16Array(Math.max(entries, this.compactShapes.length * 2, 1024));
    next.set(this.compactShapes);
    this.compactShapes = next;
  }

  /** Room for `entries` names' bits (new names are live: their bits stay 0). */
  private ensureDeadBits(entries: number): void {
    const words = (entries + 31) >>> 5;
    if (words <= this.deadBits.length) return;
    const next = new Uint32Array(Math.max(words, this.deadBits.length * 2, 1024));
    next.set(this.deadBits);
    this.deadBits = next;
  }

  private searchReading(search: Search, reading: NormalisedName, outcome: SearchOutcome): void {
    this.exactRuns(search, reading);
    // The primary name written out exactly, the whole query: nothing can score higher.
    if (search.best?.confidence !== 1) {
      if (search.only >= 0) this.byWordsOfOne(search);
      else this.byWords(search);
    }
    if (search.bestScore > outcome.bestScore) outcome.bestScore = search.bestScore;
    if (search.best && isBetter(search.best, outcome.best)) outcome.best = search.best;
  }

  /** Runs of query words that are a protected name written out (with or without its spaces). */
  private exactRuns(search: Search, reading: NormalisedName): void {
    const { words } = search;
    const whole = words.length === 1 ? reading.compact : undefined;
    for (let start = 0; start < words.length; start++) {
      let joined = '';
      for (let end = start; end < Math.min(words.length, start + MAX_JOINED_WORDS); end++) {
        joined += words[end] ?? '';
        const covers = start === 0 && end === words.length - 1;
        const text = covers && whole !== undefined ? whole : joined;
        this.compacts.forEach(hash32(text), (entry) => {
          if (search.only >= 0 && this.entryIdentity.get(entry) !== search.only) return;
          if (!this.isLive(entry) || this.compactOf(entry) !== text) return;
          const single = this.entryTokenCount.get(entry) === 1;
          if (!covers && !this.mayWrap(search, single, start, end)) return;
          const primary = (this.entryFlags.get(entry) & PRIMARY) !== 0;
          const confidence = (primary ? 1 : PENALTY.variation) * (covers || single ? 1 : WRAPPED);
          this.consider(search, entry, primary ? 1 : 2, confidence);
        });
      }
    }
  }

  /** A protected name inside longer text: a one-word name only beside generic words ("X AI"). */
  private mayWrap(search: Search, singleWord: boolean, start: number, end: number): boolean {
    if (search.mode === 'description') return !singleWord;
    if (!singleWord) return true;
    return search.words.every(
      (word, i) => (i >= start && i <= end) || CONTEXT_WORDS.has(word) || /^\d+$/.test(word),
    );
  }

  private compactOf(entry: number): string {
    const start = this.entryTokenStart.get(entry);
    let out = '';
    for (let i = 0; i < this.entryTokenCount.get(entry); i++)
      out += this.tokens.text(this.entryTokens.get(start + i));
    return out;
  }

  /**
   * Names holding a word alike to some query word, each scored once against every window: the
   * candidates are gathered from the postings first, ranked by a cheap upper bound of their score
   * and scored best first, until no candidate left can change the answer (ADR 0007).
   */
  private byWords(search: Search): void {
    if (this.rankCandidates) {
      this.rankedByWords(search);
      return;
    }
    if (this.stamps.length < this.entryIdentity.length) {
      this.stamps = new Uint32Array(Math.max(1024, this.entryIdentity.data.length));
      this.stamp = 0;
    }
    this.stamp = (this.stamp + 1) >>> 0;
    if (this.stamp === 0) {
      this.stamps.fill(0);
      this.stamp = 1;
    }
    const visited = new Set<number>();
    this.leadingTokens(search, visited, (token) => {
      this.work.tokensVisited++;
      this.postings.forEach(token, (entry) => {
        this.work.postingsRead++;
        if (this.stamps[entry] === this.stamp) return;
        this.stamps[entry] = this.stamp;
        if (this.isLive(entry)) this.scoreEntry(search, entry);
      });
    });
  }

  /**
   * byWords for one identity: its live names that a word the query leads to is part of, each
   * scored. Scoring every candidate gives the answer ranking gives (rankedByWords), so the answer
   * is the whole search's limited to this identity; no posting is read.
   */
  private byWordsOfOne(search: Search): void {
    const first = this.identityFirstEntry.get(search.only);
    const count = this.identityEntryCount.get(search.only);
    const visited = new Set<number>();
    this.leadingTokens(search, visited, () => undefined);
    for (let entry = first; entry < first + count; entry++) {
      if (!this.isLive(entry)) continue;
      const start = this.entryTokenStart.get(entry);
      let led = false;
      for (let i = 0; i < this.entryTokenCount.get(entry) && !led; i++)
        led = visited.has(this.entryTokens.get(start + i));
      if (led) this.scoreEntry(search, entry);
    }
  }

  /**
   * Which words lead to candidates (every protected name has a word within one edit of the query
   * when it is within the edit budget): generic words only when nothing else is there, words of
   * three letters or fewer only exactly when a longer word is there, sound-alikes only for a word
   * that met nothing closer. This keeps the candidates few at millions of names. `visit` hears
   * each word once; `visited` holds them.
   */
  private leadingTokens(search: Search, visited: Set<number>, visit: (token: number) => void): void {
    const visitToken = (token: number): void => {
      if (visited.has(token)) return;
      visited.add(token);
      visit(token);
    };
    const meaningful = search.words.filter((w) => !CONTEXT_WORDS.has(w));
    const hasLongWord = meaningful.some((w) => w.length >= MIN_DELETION_LENGTH + 1);
    for (const word of meaningful.length > 0 ? meaningful : search.words) {
      const before = visited.size;
      const exact = this.tokens.get(word);
      if (exact >= 0) visitToken(exact);
      if (search.mode === 'description') continue;
      if (hasLongWord && word.length <= MIN_DELETION_LENGTH) continue;
      for (const key of deletionKeys(word)) this.deletions.forEach(hash32(key), visitToken);
      if (visited.size > before) continue;
      for (const code of this.codesOf(search, word)) {
        let budget = MAX_SOUND_ALIKE_TOKENS;
        this.phonetic.forEach(hash32(code), (token) => {
          if (budget-- > 0) visitToken(token);
        });
      }
    }
  }

  /**
   * Gathers the candidates as the postings' names (a run of memory per word, sorted natively:
   * no lookup per posting), gives each a bound from its shape and the number of its words the
   * query's words lead to or are near (`shapeBound`), and scores them in the order of that bound,
   * best first. It stops at the first bound below both the best score so far (so `bestScore` is
   * what scoring them all would give) and what could still be accepted (the best accepted so far,
   * or `acceptsFrom` while there is none); a candidate whose exact bound (`scoreBound`, which
   * reads its words) is below both is passed over. The answer is that of scoring every
   * candidate; the names read are those that may still win.
   */
  private rankedByWords(search: Search): void {
    const led = this.led;
    led.length = 0;
    const visited = new Set<number>();
    // The query's words as stored words: a name's word that is none of them costs an edit at least.
    const exactTokens = new Set<number>();
    for (const word of search.words) {
      const token = this.tokens.get(word);
      if (token >= 0) exactTokens.add(token);
    }
    // Each posting is pushed as entry * 4, + 2 when its word is short (a short word led to is not
    // one that might be near unled), + 1 when its word is none of the query's (an edit at least).
    // Names are numbered below 2^30: 250M identities.
    this.leadingTokens(search, visited, (token) => {
      this.work.tokensVisited++;
      const flags = (this.tokens.lengths.get(token) <= SHORT_WORD ? 2 : 0) + (exactTokens.has(token) ? 0 : 1);
      this.postings.forEach(token, (entry) => void led.push(entry * 4 + flags));
    });
    const count = led.length;
    this.work.postingsRead += count;
    if (count === 0) return;
    // Near words that lead nowhere (around generic and short query words): a name's bound must
    // count them as near. Short ones are counted by the name's shape; longer ones, through their
    // postings, while they are few (else no name's bound counts any far word).
    const near = this.nearTokens(search);
    const unled = this.unled;
    unled.length = 0;
    let counted = true;
    // Whether a short word near a query word may lead nowhere: else a name's short words are
    // near only when led to, and its shape need not count them as near.
    let shortUnled = false;
    for (const token of near) {
      if (visited.has(token)) continue;
      if (this.tokens.lengths.get(token) <= SHORT_WORD) {
        shortUnled = true;
        continue;
      }
      this.postings.forEach(token, (entry) => void unled.push(entry));
      if (unled.length > UNLED_POSTINGS_BUDGET) counted = false;
    }
    const entries = led.data.subarray(0, count).sort();
    const others = counted ? unled.data.subarray(0, unled.length).sort() : new Uint32Array(0);
    if (this.order.length < count) this.order = new Float64Array(Math.max(count, this.order.length * 2));
    if (this.lowOrder.length < count)
      this.lowOrder = new Float64Array(Math.max(count, this.lowOrder.length * 2));
    const order = this.order;
    const lowOrder = this.lowOrder;
    const compactShapes = this.compactShapes;
    let ranked = 0;
    let lowRanked = 0;
    let other = 0;
    for (let i = 0; i < count;) {
      const entry = (entries[i] ?? 0) >>> 2;
      let hits = 0;
      let shortHits = 0;
      let inexactHits = 0;
      for (; i < count && (entries[i] ?? 0) >>> 2 === entry; i++) {
        const flags = (entries[i] ?? 0) & 3;
        hits++;
        shortHits += flags >>> 1;
        inexactHits += flags & 1;
      }
      while (other < others.length && (others[other] ?? 0) < entry) other++;
      while (other < others.length && others[other] === entry) {
        hits++;
        other++;
      }
      const compact = compactShapes[entry] ?? COMPACT_FULL;
      const bound = this.shapeBound(
        search,
        compact === COMPACT_FULL ? this.entryInfo.get(entry * 2 + 1) : shapeOfCompact(compact),
        counted ? hits : -1,
        shortUnled ? shortHits : -1,
        inexactHits,
      );
      if (bound <= 0) continue;
      // Highest bound first, then the lowest name number; the bound rounded up stays a bound.
      const steps = Math.min(BOUND_STEPS, Math.ceil(bound * BOUND_STEPS));
      const key = (BOUND_STEPS - steps) * TWO_TO_32 + entry;
      if (bound > LOW_TIER) order[ranked++] = key;
      else lowOrder[lowRanked++] = key;
    }
    // Most names a query's words lead to have a word far from every query word, which bounds them
    // at or below LOW_TIER: they are sorted only when the names above it leave the answer open.
    if (this.scoreRanked(search, order.subarray(0, ranked).sort(), near, exactTokens)) return;
    const floor = search.best ? search.best.confidence : search.acceptsFrom;
    if (LOW_TIER + BOUND_MARGIN < search.bestScore && LOW_TIER + BOUND_MARGIN < floor) return;
    this.scoreRanked(search, lowOrder.subarray(0, lowRanked).sort(), near, exactTokens);
  }

  /**
   * Bounds and scores sorted candidates (rankedByWords' keys), best bound first; true once the
   * rest cannot change the answer.
   */
  private scoreRanked(
    search: Search,
    sorted: Float64Array,
    near: Set<number>,
    exactTokens: Set<number>,
  ): boolean {
    const ranked = sorted.length;
    for (let i = 0; i < ranked; i++) {
      const key = sorted[i] ?? 0;
      const high = Math.floor(key / TWO_TO_32);
      const entry = key - high * TWO_TO_32;
      // Bounds are compared with a margin for the rounding of reported confidences.
      const floor = search.best ? search.best.confidence : search.acceptsFrom;
      const bound = (BOUND_STEPS - high) / BOUND_STEPS + BOUND_MARGIN;
      if (bound < search.bestScore && bound < floor) return true;
      if (!this.isLive(entry)) continue;
      this.work.namesBounded++;
      const exact = this.scoreBound(search, entry, near, exactTokens);
      if (exact <= 0) continue;
      if (exact + BOUND_MARGIN < search.bestScore && exact + BOUND_MARGIN < floor) continue;
      this.scoreEntry(search, entry);
    }
    return false;
  }

  /**
   * An upper bound of `scoreBound` from a name's shape alone: `hits`, the distinct words of the
   * name that the query's words lead to or that are near one of them (-1: unknown), of which
   * `shortHits` are short (-1: no short word near a query word leads nowhere) and `inexactHits`
   * none of the query's words, leaves at least `distinct - hits - (short - shortHits)` words far
   * from every query word (a short word not led to may be near a query word that leads nowhere);
   * near and far words cost as in scoreBound.
   */
  private shapeBound(
    search: Search,
    shape: number,
    hits: number,
    shortHits: number,
    inexactHits: number,
  ): number {
    if ((shape & SHAPE_OVERFLOW) !== 0) return 1;
    const letters = shape & 0x3fff;
    const m = (shape >>> 14) & 0x3f;
    const distinct = (shape >>> 20) & 0x3f;
    const short = (shape >>> 26) & 0x7;
    const n = search.words.length;
    const primary = (shape & SHAPE_PRIMARY) !== 0;
    if (m === 0) return 0;
    if (m > n + 1) return mayLeaveOut(search, m) ? leftOutBound(primary) : 0;
    if (search.mode === 'description' && m === 1) return 0;
    // Short words of the name not led to may be near a query word that leads nowhere.
    const maybeNear = shortHits < 0 ? 0 : Math.max(0, short - shortHits);
    const far = hits < 0 ? 0 : Math.max(0, distinct - hits - maybeNear);
    if (far > 0 && search.mode === 'description') return 0;
    return this.boundOf(
      search,
      m,
      letters,
      inexactHits,
      far,
      primary,
      mayLeaveOut(search, m) ? PENALTY.leftOut : 0,
    );
  }

  /**
   * The bound of a name of m words and `letters` letters, of which `inexact` words are near a
   * query word but none of them (one edit at least, or a sound-alike) and `far` words are far from
   * every query word (two edits at least, or a sound-alike): each takes its edits while the name's
   * edit budget lasts, else the highest sound-alike factor, whichever gives more; or `leftOut`,
   * the most that leaving middle words out can give (0 when it cannot).
   */
  private boundOf(
    search: Search,
    m: number,
    letters: number,
    inexact: number,
    far: number,
    primary: boolean,
    leftOut: number,
  ): number {
    const budget = nameEditBudget(m, letters);
    let bound = 0;
    for (let edited = 0; edited <= inexact && edited <= budget; edited++) {
      for (let farEdited = 0; farEdited <= far && edited + 2 * farEdited <= budget; farEdited++) {
        const edits = edited + 2 * farEdited;
        const sounds = inexact - edited + (far - farEdited);
        const value = (1 - (0.6 * edits) / Math.max(letters, 1)) * farFactorTo(sounds);
        if (value > bound) bound = value;
      }
    }
    // Middle words left out score `leftOut` at most (PENALTY.leftOut, less for far end words).
    if (bound < leftOut) bound = leftOut;
    if (!primary) bound *= PENALTY.variation;
    if (m === 1) bound *= PENALTY.singleTokenName;
    // Every alignment spans m or m + 1 query words: with more, the name is always wrapped.
    if (m > 1 && search.words.length > m + 1) bound *= WRAPPED;
    return bound;
  }

  /**
   * The protected words within one edit of some query word (the query word itself and its
   * one-deletion neighbours; in a description, the query words only). A word outside this set is
   * two edits or more from every query word, or alike only by sound, or not alike at all.
   */
  private nearTokens(search: Search): Set<number> {
    const near = new Set<number>();
    const add = (token: number): void => void near.add(token);
    for (const word of search.words) {
      const exact = this.tokens.get(word);
      if (exact >= 0) near.add(exact);
      if (search.mode === 'description') continue;
      for (const key of deletionKeys(word)) this.deletions.forEach(hash32(key), add);
    }
    return near;
  }

  /**
   * An upper bound of the confidence `scoreEntry` can give this name, or 0 when it gives none.
   * It mirrors the scorer: a word outside `near` adds two edits or more (plain, or counted as a
   * sound-alike) or multiplies by a phonetic factor of at most 0.88; a word whose length is too
   * far from every query word's for the scorer's distance cap is not alike, so the name scores
   * nothing; in a description only words written out exactly are alike.
   */
  private scoreBound(search: Search, entry: number, near: Set<number>, exactTokens: Set<number>): number {
    // The name's first token and shape sit side by side in entryInfo: one read of memory for what
    // three arrays (count, start, flags) would take, unless a field of the shape overflowed.
    const start = this.entryInfo.get(entry * 2);
    const shape = this.entryInfo.get(entry * 2 + 1);
    const overflow = (shape & SHAPE_OVERFLOW) !== 0;
    const m = overflow ? this.entryTokenCount.get(entry) : (shape >>> 14) & 0x3f;
    const primary = overflow ? (this.entryFlags.get(entry) & PRIMARY) !== 0 : (shape & SHAPE_PRIMARY) !== 0;
    const n = search.words.length;
    const leaves = mayLeaveOut(search, m);
    if (m === 0 || (m > n + 1 && !leaves)) return 0;
    if (search.mode === 'description' && m === 1) return 0;
    let letters = 0;
    let inexact = 0;
    let far = 0;
    // Too many words, or a middle word out of reach: only the alignments that leave words out.
    let onlyLeftOut = m > n + 1;
    // Those keep the first and last words: each far from every query word costs FAR_FACTOR.
    let leftOut = leaves ? PENALTY.leftOut : 0;
    for (let i = 0; i < m; i++) {
      const token = this.entryTokens.get(start + i);
      const length = this.tokens.lengths.get(token);
      letters += length;
      if (exactTokens.has(token)) continue;
      if (near.has(token)) {
        inexact++;
        continue;
      }
      if (search.mode === 'description') return 0;
      let reachable = false;
      for (let position = 0; position < n && !reachable; position++) {
        const wordLength = search.words[position]?.length ?? 0;
        const cap = Math.max(
          editsAllowedIn(length),
          Math.max(1, Math.floor(Math.max(wordLength, length) / 3)),
        );
        reachable = Math.abs(wordLength - length) <= cap;
      }
      if (!reachable) {
        if (!leaves || i === 0 || i === m - 1) return 0;
        onlyLeftOut = true;
      }
      if (i === 0 || i === m - 1) leftOut *= FAR_FACTOR;
      far++;
    }
    if (onlyLeftOut) return leftOut * (primary ? 1 : PENALTY.variation);
    return this.boundOf(search, m, letters, inexact, far, primary, leftOut);
  }

  private codesOf(search: Search, word: string): string[] {
    let codes = search.codes.get(word);
    if (!codes) {
      codes = word.length >= 2 ? phoneticCodes(word) : [];
      search.codes.set(word, codes);
    }
    return codes;
  }

  /** Edits between a protected word and a query word, PHONETIC + edits for a sound-alike, or NOT_ALIKE. */
  private relation(search: Search, token: number, position: number): number {
    const key = token * MAX_QUERY_TOKENS + position;
    const cached = search.relations.get(key);
    if (cached !== undefined) return cached;
    this.work.wordComparisons++;
    const target = this.tokens.text(token);
    const word = search.words[position] ?? '';
    let result = NOT_ALIKE;
    if (word === target) result = 0;
    else if (search.mode === 'name') {
      const longest = Math.max(word.length, target.length);
      const maxPhonetic = Math.max(1, Math.floor(longest / 3));
      const cap = editsAllowedIn(target.length);
      const d = boundedEditDistance(word, target, Math.max(cap, maxPhonetic));
      const soundsAlike = (): boolean => {
        if (word.length < 2 || target.length < 2) return false;
        const targetCodes = phoneticCodes(target);
        return this.codesOf(search, word).some((code) => targetCodes.includes(code));
      };
      // A query word that is another known name is that name: two edits off the protected word
      // it is someone else ("Perez" is not "Lopez" misspelt); one edit off, or two that sound
      // alike, it is marked OTHER_NAME and needs evidence ("Wang Yang" is not "Wang Fang", "Ali
      // Hassoun" not "Ali Hassan"; "Tyler Swift" is). One edit that sounds alike is a spelling
      // ("Mohammed" for "Mohamed").
      const known = search.knownNames[position] === 1;
      if (d <= 1 && d <= cap) result = d === 1 && known && !soundsAlike() ? OTHER_NAME | d : d;
      else if (d <= cap) {
        if (soundsAlike()) result = (SOUNDS_ALIKE + d) | (known ? OTHER_NAME : 0);
        else result = known ? NOT_ALIKE : d;
      } else if (d <= maxPhonetic && soundsAlike()) result = PHONETIC + d;
    }
    search.relations.set(key, result);
    return result;
  }

  /**
   * Scores one protected name against the query's words: every window, in order or not, and for a
   * name of three or more words, with middle words left out ("Grace Hopper").
   */
  private scoreEntry(search: Search, entry: number): void {
    const m = this.entryTokenCount.get(entry);
    const n = search.words.length;
    const flags = this.entryFlags.get(entry);
    const leavesOut = mayLeaveOut(search, m) && (flags & HYPHENATED) === 0;
    if (m === 0 || (m > n + 1 && !leavesOut)) return;
    if (search.mode === 'description' && m === 1) return;
    this.work.candidatesScored++;
    const start = this.entryTokenStart.get(entry);
    const tokens: number[] = [];
    let letters = 0;
    // A middle word alike to no query word leaves only the alignments that leave it out.
    let whole = m <= n + 1;
    for (let i = 0; i < m; i++) {
      const token = this.entryTokens.get(start + i);
      // Most candidates share one word with the query and no other: out before any alignment.
      let alike = false;
      for (let position = 0; position < n && !alike; position++) {
        alike = this.relation(search, token, position) !== NOT_ALIKE;
      }
      if (!alike) {
        if (!leavesOut || i === 0 || i === m - 1) return;
        whole = false;
      }
      tokens.push(token);
      letters += this.tokens.lengths.get(token);
    }
    const budget = nameEditBudget(m, letters);
    const primary = (flags & PRIMARY) !== 0;
    const commonFrom = this.commonFrom();
    /**
     * Scores the name's words `kept` (all of them, or with middle words left out) at the query
     * positions `positions`. Edits are taken only where the rest of the name carries evidence
     * (EVIDENCE): otherwise another person's name is as likely ("Kenta Tanaka" for "Kenji
     * Tanaka", "Zhang Wen" for "Zhang Wei").
     */
    const tryAlignment = (
      kept: readonly number[],
      positions: readonly number[],
      penalty: number,
      inOrder: boolean,
    ): void => {
      let edits = 0;
      let phoneticFactor = 1;
      let soundAlike = false;
      let soundEdits = 0;
      let soundFactor = 1;
      let keptLetters = 0;
      // The evidence beside the edits (see EVIDENCE above): a distinctive word written out, the
      // words within one edit that are not short edited ones, and whether one of them is distinctive.
      let exactDistinctive = false;
      let nearWords = 0;
      let nearDistinctive = false;
      let twoEditsNeedEvidence = false;
      let otherNameNeedsEvidence = false;
      let shortEdited = false;
      for (let j = 0; j < kept.length; j++) {
        const token = tokens[kept[j] ?? 0] ?? 0;
        const length = this.tokens.lengths.get(token);
        keptLetters += length;
        const related = this.relation(search, token, positions[j] ?? 0);
        if (related === NOT_ALIKE) return;
        const otherName = (related & OTHER_NAME) !== 0;
        const r = related & ~OTHER_NAME;
        if (otherName) otherNameNeedsEvidence = true;
        const distinctive = !this.isCommonToken(token, commonFrom);
        let wordEdits = 0;
        if (r >= PHONETIC) phoneticFactor *= Math.max(0.7, 0.88 - 0.04 * (r - PHONETIC));
        else if (r >= SOUNDS_ALIKE) {
          wordEdits = r - SOUNDS_ALIKE;
          edits += wordEdits;
          soundEdits += wordEdits;
          soundFactor *= 0.88 - 0.04 * wordEdits;
          soundAlike = true;
        } else {
          wordEdits = r;
          edits += r;
          if (r >= 2 && length <= SHORT_FOR_TWO_EDITS && !distinctive) twoEditsNeedEvidence = true;
        }
        // A word that is another name, a sound-alike beyond edits or two edits off is no evidence.
        if (otherName || r >= PHONETIC || wordEdits > 1) continue;
        if (wordEdits === 0 && distinctive) exactDistinctive = true;
        if (wordEdits > 0 && length <= SHORT_FOR_ONE_EDIT) {
          shortEdited = true;
          continue;
        }
        nearWords++;
        if (distinctive) nearDistinctive = true;
      }
      // Reordered, with a middle word or with middle words left out: one edit at most (two reach
      // other people, "Angela Nelson").
      const allowed = inOrder ? budget : Math.min(budget, 1);
      if (edits > allowed && soundAlike) {
        // Over the edit budget, sound-alike words count by their sound instead ("Tyler Swyft").
        edits -= soundEdits;
        phoneticFactor *= soundFactor;
      }
      if (edits > allowed) return;
      if (edits > 0 && !exactDistinctive && (twoEditsNeedEvidence || !inOrder)) return;
      if (otherNameNeedsEvidence && !nearDistinctive) return;
      if (shortEdited && !nearDistinctive && nearWords < 2) return;
      let lowest = n;
      let highest = -1;
      for (let j = 0; j < kept.length; j++) {
        const position = positions[j] ?? 0;
        if (position < lowest) lowest = position;
        if (position > highest) highest = position;
      }
      const wrapped = lowest > 0 || highest < n - 1;
      if (wrapped && !this.mayWrap(search, m === 1, lowest, highest)) return;
      let confidence = (1 - (0.6 * edits) / Math.max(keptLetters, 1)) * phoneticFactor * penalty;
      if (!primary) confidence *= PENALTY.variation;
      if (m === 1) confidence *= PENALTY.singleTokenName;
      // A one-word name wraps only in generic words (mayWrap): no further penalty.
      if (wrapped && m > 1) confidence *= WRAPPED;
      const exact = edits === 0 && phoneticFactor === 1 && inOrder && kept.length === m;
      const layer: MatchLayer = exact ? (primary ? 1 : 2) : phoneticFactor < 1 || soundAlike ? 4 : 3;
      this.consider(search, entry, layer, confidence);
    };
    const all = everyWord(m);
    const window: number[] = new Array<number>(m).fill(0);
    if (whole) {
      for (let s = 0; s + m <= n; s++) {
        for (let j = 0; j < m; j++) window[j] = s + j;
        tryAlignment(all, window, 1, true);
        for (const order of PERMUTATIONS[m] ?? []) {
          tryAlignment(
            all,
            order.map((j) => s + j),
            PENALTY.reordered,
            false,
          );
        }
      }
      // A middle word the protected name does not have ("Taylor Alison Swift").
      if (m >= 2) {
        for (let s = 0; s + m + 1 <= n; s++) {
          for (let skip = 1; skip < m; skip++) {
            const positions = [...Array(m + 1).keys()].filter((i) => i !== skip).map((i) => s + i);
            tryAlignment(all, positions, PENALTY.extraToken, false);
          }
        }
      }
    }
    // Middle words left out, in order, the first and the last word kept ("Grace Hopper" for
    // "Grace Brewster Hopper"): every non-empty subset of the middle words.
    if (leavesOut) {
      for (const kept of leftOutWords(m)) {
        for (let s = 0; s + kept.length <= n; s++) {
          for (let j = 0; j < kept.length; j++) window[j] = s + j;
          tryAlignment(kept, window, PENALTY.leftOut, false);
        }
      }
    }
  }

  private consider(search: Search, entry: number, layer: MatchLayer, rawConfidence: number): void {
    const confidence = roundConfidence(rawConfidence);
    if (confidence > search.bestScore) search.bestScore = confidence;
    if (search.best && confidence < search.best.confidence) return;
    const result: MatchResult = {
      identityId: this.identityIds.text(this.entryIdentity.get(entry)),
      matchedName: this.texts.read(this.entryTextOffset.get(entry), this.entryTextLength.get(entry)),
      confidence,
      layer,
      classification: CLASSIFICATION_OF_LAYER[layer],
    };
    if (isBetter(result, search.best) && (search.accept === undefined || search.accept(result))) {
      search.best = result;
    }
  }
}
