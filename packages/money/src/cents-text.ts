import type { Cents } from './money';

// Cents leave a process as a decimal string (docs/adr/0039-money-as-cents-text.md): JSON numbers are
// doubles, exact only below 2^53, and JSON.parse, jsonb read back by pg and the broker's consumers all
// go through one. A string carries every amount a column can keep exactly; an amount no column can
// keep is refused where it is written, never rounded.

/** The largest amount kept anywhere: PostgreSQL's bigint, the type of every column of cents. */
export const MAX_CENTS: Cents = 9_223_372_036_854_775_807n;

/** Cents serialised: the decimal digits of a whole number of cents in 0..MAX_CENTS ("0", "1999"). */
export type CentsText = string;

// No sign, no leading zero, no exponent: one text per amount, so equal amounts compare equal as text.
const CANONICAL = /^(0|[1-9][0-9]*)$/;

/** Why `value` is not an amount in cents an event may carry, or null when it is one. */
export function centsProblem(value: unknown): string | null {
  if (typeof value === 'string') {
    if (!CANONICAL.test(value)) return 'cents must be a whole number of cents in decimal digits, e.g. "1999"';
    return BigInt(value) > MAX_CENTS ? `at most ${MAX_CENTS} cents` : null;
  }
  if (typeof value === 'bigint') {
    if (value < 0n) return 'cents must be ≥ 0';
    return value > MAX_CENTS ? `at most ${MAX_CENTS} cents` : null;
  }
  if (typeof value === 'number') {
    // The form events had before ADR 0039, read for one release. Past 2^53 a double may already have
    // been rounded by whoever wrote it: refused, never taken as an amount it perhaps was not.
    if (!Number.isInteger(value) || value < 0) return 'cents must be a whole number ≥ 0';
    if (!Number.isSafeInteger(value))
      return 'cents past 2^53 as a JSON number may be rounded: send them as a string';
    return null;
  }
  return 'cents must be a string of decimal digits';
}

/**
 * The serialised form of `cents` (its decimal digits); a RangeError for an amount outside
 * 0..MAX_CENTS, which no column could keep.
 */
export function centsText(cents: Cents): CentsText {
  const problem = centsProblem(cents);
  if (problem !== null) throw new RangeError(`${cents} cents: ${problem}`);
  return cents.toString();
}

/**
 * The cents a serialised amount says: its canonical text, or a safe integer (the number form of
 * events written before ADR 0039). A RangeError for anything else.
 */
export function centsFromText(value: CentsText | number): Cents {
  const problem = centsProblem(value);
  if (problem !== null) throw new RangeError(`${String(value)}: ${problem}`);
  return BigInt(value);
}
