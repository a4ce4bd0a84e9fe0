import { foldConfusables, toAscii } from '@svc/text-keys';
import { LOOK_ALIKE_SYMBOLS, readLookAlikes } from './look-alikes';
import { CONTEXT_WORDS } from './token-rules';

/** Titles and generational suffixes that say nothing about who is named. */
const HONORIFICS = new Set([
  'mr',
  'mrs',
  'ms',
  'miss',
  'mx',
  'dr',
  'doctor',
  'sir',
  'dame',
  'lord',
  'lady',
  'prof',
  'professor',
  'rev',
  'reverend',
  'hon',
  'sr',
  'jr',
  'junior',
  'senior',
  'madam',
  'madame',
  'mme',
  'mlle',
  'herr',
  'frau',
  'sra',
  'senor',
  'senora',
  'ii',
  'iii',
  'iv',
]);

/** A name reduced to comparable tokens; `compact` ignores spacing ("Taylor Swift" = "TaylorSwift"). */
export interface NormalisedName {
  tokens: string[];
  compact: string;
}

// Most names are plain ASCII: they skip the Unicode steps (a large share of the index's build time).
// eslint-disable-next-line no-control-regex
const ASCII_ONLY = /^[\x00-\x7f]*$/;
const NOT_ALPHANUMERIC = /[^a-z0-9]/g;
/** Dropped without a space: O'Brien, J.K. -> obrien, jk. */
const DROPPED = /['`.]/g;
/** Everything but letters, digits and the look-alike symbols becomes a space (per code point). */
const NOT_KEPT = new RegExp(`[^a-z0-9${LOOK_ALIKE_SYMBOLS.replace(/[\\\]^-]/g, '\\$&')}]`, 'gu');

function foldToAscii(raw: string): string {
  // Unicode's confusables first (before NFKC turns some, like `˛`, into spacing marks), then NFKC
  // (full-width and mathematical letters become plain ones) and the confusables again
  // (Cyrillic and Greek look-alikes, capitals included, become the letters they imitate), before
  // transliteration turns what is left (accents, other scripts) into ASCII.
  const folded = (
    ASCII_ONLY.test(raw) ? raw : toAscii(foldConfusables(foldConfusables(raw).normalize('NFKC')))
  ).toLowerCase();
  // Two replacements rather than a string built a character at a time: every name checked passes
  // here, and the intermediate strings were a large share of a check's garbage (bench/detection).
  return folded.replace(DROPPED, '').replace(NOT_KEPT, ' ');
}

/** The words of each reading of a name, titles still in (a '1' gives two readings: i and l). */
function rawReadings(raw: string): string[][] {
  const rawTokens = foldToAscii(raw)
    .split(' ')
    .filter((t) => t.length > 0);
  let readings: string[][] = [[]];
  for (const token of rawTokens) {
    const options = readLookAlikes(token)
      .map((t) => t.replace(NOT_ALPHANUMERIC, ''))
      .filter((t) => t.length > 0);
    if (options.length === 0) continue;
    if (options.length === 1) {
      for (const reading of readings) reading.push(options[0] ?? '');
      continue;
    }
    readings = readings.flatMap((prefix) => options.map((o) => [...prefix, o])).slice(0, 4);
  }
  return readings;
}

function untitled(reading: string[]): string[] {
  const meaningful = reading.filter((t) => !HONORIFICS.has(t));
  return mergeSpelledOut(meaningful.length > 0 ? meaningful : reading);
}

/**
 * A title before a single name may be part of the name ("Lady Gaga", "Dr. Dre"): without it one
 * short word is left, which a typo anywhere ("Laady Gaga", "Lady Gagaa") takes out of reach. Such
 * a reading is also read with its titles, and so is one where the single name has only generic
 * words around it ("Lady Gagaa AI", "The Real Dr Dree"); null for any other.
 */
function titled(reading: string[]): string[] | null {
  let titles = 0;
  let names = 0;
  for (const token of reading) {
    if (HONORIFICS.has(token)) titles += 1;
    else if (!CONTEXT_WORDS.has(token)) names += 1;
  }
  return titles > 0 && names === 1 ? mergeSpelledOut(reading) : null;
}

function toNormalised(tokens: string[]): NormalisedName {
  return { tokens, compact: tokens.join('') };
}

/**
 * Every reading of a name after normalisation: case, accents (transliterated), punctuation,
 * spacing, honorifics and look-alike characters. Usually one reading; a '1' gives two (i and l),
 * and a title before a single name one more with the title kept (after the others).
 */
export function normaliseName(raw: string): NormalisedName[] {
  const readings = rawReadings(raw);
  const results = new Map<string, NormalisedName>();
  for (const tokens of [...readings.map(untitled), ...readings.map(titled)]) {
    if (tokens === null || tokens.length === 0) continue;
    const key = tokens.join(' ');
    if (!results.has(key)) results.set(key, toNormalised(tokens));
  }
  return [...results.values()];
}

/** "T a y l o r  S w i f t": runs of single letters are one spelled-out token. */
function mergeSpelledOut(tokens: string[]): string[] {
  const out: string[] = [];
  let run = '';
  for (const token of tokens) {
    if (token.length === 1) {
      run += token;
      continue;
    }
    if (run.length > 0) out.push(run);
    run = '';
    out.push(token);
  }
  if (run.length > 0) out.push(run);
  return out;
}

/**
 * The readings a protected name is held under in the index: its first reading (protected names
 * rarely use look-alikes) without titles, and with them when they stand before a single name.
 */
export function normaliseProtectedName(raw: string): NormalisedName[] {
  const [reading] = rawReadings(raw);
  if (reading === undefined || reading.length === 0) return [];
  const plain = untitled(reading);
  const withTitles = titled(reading);
  return withTitles === null ? [toNormalised(plain)] : [toNormalised(plain), toNormalised(withTitles)];
}
