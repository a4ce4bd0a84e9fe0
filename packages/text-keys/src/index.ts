// Style rule 4: the text libraries detection's name matching uses sit behind this interface, so
// one can be swapped (or pinned to another line) without touching the matching rules.
import anyAscii from 'any-ascii';
import doubleMetaphone from 'double-metaphone';
import { distance } from 'fastest-levenshtein';

/** The string in ASCII: accents dropped, other scripts and look-alike letters transliterated. */
export function toAscii(value: string): string {
  return anyAscii(value);
}

/** The primary and secondary Double Metaphone codes of a word (sound-alike keys). */
export function metaphoneCodes(word: string): [string, string] {
  return doubleMetaphone(word);
}

/** The Levenshtein distance between two strings. */
export function levenshtein(a: string, b: string): number {
  return distance(a, b);
}

// Unicode's confusables.txt (UTS #39) as unhomoglyph ships it: character -> its prototype.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const CONFUSABLES = require('unhomoglyph/data.json') as Readonly<Record<string, string>>;

const LATIN = /\p{Script=Latin}/u;

/**
 * Each non-ASCII character that Unicode lists as confusable with something replaced by its
 * prototype (Cyrillic `Х` and `х` -> `X` and `x`, Greek `ο` -> `o`, Cherokee `Ꭺ` -> `A`). An
 * capital look-alike of `I` is an `i` (the list says `l`, which is right for URLs, not names). ASCII is left alone (digits and symbols are read as
 * letters elsewhere, where the context is known).
 */
export function foldConfusables(value: string): string {
  let out = '';
  for (const ch of value) {
    // Latin letters with accents are transliterated, not folded: the list maps `ö` to Arabic `ة`.
    if (ch.charCodeAt(0) < 128 || LATIN.test(ch)) {
      out += ch;
      continue;
    }
    const mapped = CONFUSABLES[ch];
    const lower = ch.toLowerCase();
    // The list maps capital look-alikes of `I` to `l`; in a name that is an `i`.
    if (mapped === 'l' && lower !== ch) out += CONFUSABLES[lower] ?? 'i';
    else out += mapped ?? (lower !== ch ? CONFUSABLES[lower] : undefined) ?? ch;
  }
  return out;
}

/** Every character Unicode lists as confusable with this ASCII letter or digit (for tests). */
export function confusablesOf(prototype: string): string[] {
  return Object.keys(CONFUSABLES).filter(
    (ch) => ch.charCodeAt(0) >= 128 && !LATIN.test(ch) && CONFUSABLES[ch] === prototype,
  );
}
