import { hash32 } from './compact-tables';
import { phoneticCodes } from './confidence';
import {
  MAX_JOINED_WORDS,
  NAME_INDEX_VERSION,
  searchedReadings,
  type NameIndex,
  type SearchMode,
} from './name-index';
import { deletionKeys } from './token-rules';

/*
 * Match keys: a blocking filter for a box's initial scan (issue #34). A search finds a protected
 * name only through a key the query's words lead to: a run of its words written without spaces
 * equal to the name's (exactRuns), a word of it sharing a one-deletion key with one of the name's
 * (exact words included, as a word is one of its own keys), or the same sound (Double Metaphone).
 * An avatar whose keys share none with an identity's can therefore not match it by name, and the
 * scan need not ask about it. The keys are a superset of what a search looks up: the sound of every
 * word, not only of words that met nothing closer, and deletions of short words beside long ones.
 * Each is hashed to a 32-bit integer; a collision only lets an avatar through to be asked about.
 */

/** The rules of the keys: bump with any change to them or to what a search looks up. */
export const MATCH_KEYS_VERSION = NAME_INDEX_VERSION * 100 + 1;

const COMPACT = 'c:';
const WORD = 'd:';
const SOUND = 'p:';

/** As PostgreSQL's int4 stores it. */
function key(text: string): number {
  return hash32(text) | 0;
}

function addWordKeys(keys: Set<number>, word: string, mode: SearchMode): void {
  if (mode === 'description') {
    // A description's words are looked up exactly.
    keys.add(key(WORD + word));
    return;
  }
  for (const deleted of deletionKeys(word)) keys.add(key(WORD + deleted));
  if (word.length >= 2) for (const code of phoneticCodes(word)) keys.add(key(SOUND + code));
}

/** The keys a search of `text` (an avatar's name, or its description) can look up. */
function queryKeys(keys: Set<number>, text: string, mode: SearchMode): void {
  for (const { words, reading } of searchedReadings(text, mode)) {
    if (words.length === 1) keys.add(key(COMPACT + reading.compact));
    for (let start = 0; start < words.length; start++) {
      let joined = '';
      for (let end = start; end < Math.min(words.length, start + MAX_JOINED_WORDS); end++) {
        joined += words[end] ?? '';
        keys.add(key(COMPACT + joined));
      }
    }
    for (const word of words) addWordKeys(keys, word, mode);
  }
}

/** An avatar's match keys: those of its name, and of its description when it has one. */
export function avatarMatchKeys(name: string, description?: string | null): number[] {
  const keys = new Set<number>();
  queryKeys(keys, name, 'name');
  if (description !== undefined && description !== null && description.trim() !== '')
    queryKeys(keys, description, 'description');
  return [...keys].sort((a, b) => a - b);
}

/**
 * An identity's match keys as `index` holds its names: each name's compact form, and every key of
 * each of its words. An avatar whose keys share none of these cannot match the identity by name.
 */
export function identityMatchKeys(index: NameIndex, identityId: string): number[] {
  const keys = new Set<number>();
  for (const { tokens, compact } of index.storedNamesOf(identityId)) {
    keys.add(key(COMPACT + compact));
    for (const token of tokens) {
      for (const deleted of deletionKeys(token)) keys.add(key(WORD + deleted));
      for (const code of phoneticCodes(token)) keys.add(key(SOUND + code));
    }
  }
  return [...keys].sort((a, b) => a - b);
}
