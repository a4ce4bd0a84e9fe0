/**
 * Digits and symbols written in place of letters ("T4yl0r $w1ft"). Unicode look-alikes (Cyrillic,
 * Greek, full-width, mathematical letters) are folded earlier by NFKC and transliteration.
 */
const LOOK_ALIKES: Readonly<Record<string, string>> = {
  '0': 'o',
  '2': 'z',
  '3': 'e',
  '4': 'a',
  '5': 's',
  '6': 'g',
  '7': 't',
  '8': 'b',
  '9': 'g',
  '@': 'a',
  $: 's',
  '|': 'l',
  '!': 'i',
  '€': 'e',
  '£': 'l',
};

/** '1' stands for either 'i' or 'l'; the query is tried both ways. */
const ONE_READINGS = ['i', 'l'] as const;

const HAS_LETTER = /[a-z]/;
/** A character readLookAlikes replaces (a key of LOOK_ALIKES, or '1'). */
const MAY_LOOK_ALIKE = /[0-9@$|!€£]/;

/** The readings of one token: itself when it has no letter (e.g. "50"), else with look-alikes replaced. */
export function readLookAlikes(raw: string): string[] {
  // A leading @ is a handle and a trailing ! is punctuation, not letters.
  const token = raw.replace(/^@+/, '').replace(/!+$/, '');
  if (!HAS_LETTER.test(token)) return [token];
  // Most words have no digit or symbol: no string is built for them.
  if (!MAY_LOOK_ALIKE.test(token)) return [token];
  let mapped = '';
  for (const ch of token) mapped += LOOK_ALIKES[ch] ?? ch;
  if (!mapped.includes('1')) return [mapped];
  return ONE_READINGS.map((letter) => mapped.replaceAll('1', letter));
}

/** Characters kept through normalisation so that readLookAlikes can see them. */
export const LOOK_ALIKE_SYMBOLS = '@$|!€£';
