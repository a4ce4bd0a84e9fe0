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
