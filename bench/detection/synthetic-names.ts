/**
 * The synthetic registry both detection benches use: names from random syllables (so the
 * vocabulary is far larger than real names': a worst case for memory and for shared words), the
 * three variations each identity gets, and the disguises the checks use.
 */

/** A seeded PRNG (mulberry32): the same run every time. */
export function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ONSETS = [
  'b',
  'br',
  'c',
  'ch',
  'd',
  'f',
  'g',
  'gr',
  'h',
  'j',
  'k',
  'l',
  'm',
  'n',
  'p',
  'r',
  's',
  'sh',
  't',
  'th',
  'v',
  'w',
  'z',
  '',
];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'ai', 'ea', 'ou', 'y'];
const CODAS = ['', 'n', 'r', 's', 'l', 'm', 'th', 'ck', 'x', 'nd', 'rt'];

export function word(random: () => number, syllables: number): string {
  let out = '';
  for (let i = 0; i < syllables; i++) {
    out += ONSETS[Math.floor(random() * ONSETS.length)];
    out += VOWELS[Math.floor(random() * VOWELS.length)];
    if (i === syllables - 1 || random() < 0.3) out += CODAS[Math.floor(random() * CODAS.length)];
  }
  return out.charAt(0).toUpperCase() + out.slice(1);
}

export function personName(random: () => number): string {
  return `${word(random, 2 + Math.floor(random() * 2))} ${word(random, 2 + Math.floor(random() * 2))}`;
}

/** The three variations the bench gives a name: a short first name, a middle name, another first name. */
export function variationsOf(random: () => number, name: string): string[] {
  const [first, last] = name.split(' ');
  return [
    `${first?.slice(0, 3)} ${last}`,
    `${first} ${word(random, 2)} ${last}`,
    `${word(random, 2)} ${last}`,
  ];
}

/** One typo: a letter deleted, doubled, or swapped with the next. */
export function typo(random: () => number, name: string): string {
  const letters = [...name];
  let at = Math.floor(random() * letters.length);
  if (letters[at] === ' ') at = Math.max(0, at - 1);
  const kind = Math.floor(random() * 3);
  if (kind === 0) letters.splice(at, 1);
  else if (kind === 1) letters.splice(at, 0, letters[at] ?? 'e');
  else if (at + 1 < letters.length && letters[at + 1] !== ' ')
    [letters[at], letters[at + 1]] = [letters[at + 1] ?? '', letters[at] ?? ''];
  return letters.join('');
}

/** The wrappers avatar makers put around a protected name (issue 17). */
export const WRAPPERS = [
  'X Official',
  'X (official)',
  'X_official',
  'X AI',
  'AI X',
  'X AI Companion',
  'The Real X',
];

/** A name that is nobody's (a trailing `x` no generated word ends a syllable run with twice). */
export function unknownName(random: () => number): string {
  return `${word(random, 3)} ${word(random, 3)}x`;
}
