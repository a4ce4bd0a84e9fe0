// The one rule for a checked or claimed name (docs/spec/contracts.md §2, INVALID_NAME), shared by the
// registry (claims, variations) and detection (identity checks) so that both refuse the same names.
import { STORABLE_TEXT } from './schemas';

export const MAX_NAME_LENGTH = 200;

// Control characters (C0, DEL, C1), including tab and newline: a name is one line of text.
const CONTROL = /\p{Cc}/u;
// Nothing but punctuation, separators and whitespace.
const NO_SUBSTANCE = /^[\p{P}\p{Z}\s]*$/u;

/**
 * The name trimmed (NFC), or why it is refused: empty, only punctuation or whitespace, over 200
 * characters, a control character or an unpaired surrogate. Letters of any script are welcome.
 */
export function readName(value: string): { name: string } | { problem: string } {
  if (CONTROL.test(value)) return { problem: 'must not contain control characters' };
  // Half of a UTF-16 pair is no character: PostgreSQL cannot store it faithfully.
  if (!STORABLE_TEXT.test(value)) return { problem: 'must not contain unpaired surrogates' };
  const name = value.normalize('NFC').trim();
  if (name === '') return { problem: 'must not be empty' };
  if ([...name].length > MAX_NAME_LENGTH) return { problem: `must be at most ${MAX_NAME_LENGTH} characters` };
  if (NO_SUBSTANCE.test(name))
    return { problem: 'must contain a letter, digit or symbol, not only punctuation' };
  return { name };
}
