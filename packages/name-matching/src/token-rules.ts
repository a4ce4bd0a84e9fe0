/**
 * How far a disguised word may stray from a protected one. A name of two or more words takes two
 * edits in all, spread over its words or both in one; a word takes as many as its length allows
 * (none in one or two letters, one in three or four, two from five on). A one-word name takes one
 * edit from four letters on: two edits in a single word reach other people's names ("Shakira",
 * "Sakura").
 */
export function editsAllowedIn(wordLength: number): number {
  if (wordLength <= 2) return 0;
  if (wordLength <= 4) return 1;
  return 2;
}

/** Edits allowed over a whole protected name of `words` words and `letters` letters. */
export function nameEditBudget(words: number, letters: number): number {
  if (words >= 2) return 2;
  return letters >= 4 ? 1 : 0;
}

let previous = new Int32Array(64);
let current = new Int32Array(64);
let beforePrevious = new Int32Array(64);

/**
 * Optimal string alignment distance (Levenshtein with a swap of two neighbours costing 1),
 * or `max + 1` as soon as it must exceed `max`: only small distances are ever asked for.
 */
export function boundedEditDistance(a: string, b: string, max: number): number {
  if (a === b) return 0;
  if (Math.abs(a.length - b.length) > max) return max + 1;
  const n = b.length;
  if (previous.length <= n + 1) {
    previous = new Int32Array(n + 2);
    current = new Int32Array(n + 2);
    beforePrevious = new Int32Array(n + 2);
  }
  for (let j = 0; j <= n; j++) previous[j] = j;
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let rowMin = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= n; j++) {
      const cb = b.charCodeAt(j - 1);
      let value = Math.min(
        (previous[j] ?? 0) + 1,
        (current[j - 1] ?? 0) + 1,
        (previous[j - 1] ?? 0) + (ca === cb ? 0 : 1),
      );
      if (i > 1 && j > 1 && ca === b.charCodeAt(j - 2) && a.charCodeAt(i - 2) === cb) {
        value = Math.min(value, (beforePrevious[j - 2] ?? 0) + 1);
      }
      current[j] = value;
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > max) return max + 1;
    const spare = beforePrevious;
    beforePrevious = previous;
    previous = current;
    current = spare;
  }
  const result = previous[n] ?? 0;
  return result > max ? max + 1 : result;
}

/**
 * Generic words avatar makers put around a protected name ("X AI", "The Real X", "X Official").
 * A one-word protected name counts inside a longer name only beside these (and numbers): next to
 * another name-like word it is more likely someone else of that name ("Shakira Smith").
 */
export const CONTEXT_WORDS: ReadonlySet<string> = new Set(
  `the real official officiel oficial offizial ai bot chat chatbot companion assistant virtual digital
  fan fans fanpage page account voice clone avatar hd tv music live original parody fake not best
  by of and with my your our me version v2 v3 new updated unofficial daily news life style vibes
  tribute rp roleplay gpt llm model character persona edition mode tm sim simulator girlfriend
  boyfriend wife husband friend bestie buddy ai2 xd lol uwu`
    .split(/\s+/)
    .filter((w) => w.length > 0),
);

/** Shortest word whose one-deletion keys are indexed (shorter words are found exactly or by sound). */
export const MIN_DELETION_LENGTH = 3;

/** A word and each way of deleting one of its letters (symmetric deletion: one edit either side meets). */
export function deletionKeys(token: string): Set<string> {
  const keys = new Set([token]);
  if (token.length >= MIN_DELETION_LENGTH) {
    for (let i = 0; i < token.length; i++) keys.add(token.slice(0, i) + token.slice(i + 1));
  }
  return keys;
}
