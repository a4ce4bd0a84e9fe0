import { errors } from '@svc/errors';

// Money is integer cents (BigInt) from the first moment: an amount is read from its shortest
// decimal form (what JSON wrote), never multiplied as a binary float, and becomes a number of
// currency units only when presented. Rounding is half-up, at one place (divideHalfUp).

/** An amount of money in integer cents: the one representation every service computes with. */
export type Cents = bigint;

/** An exact decimal: value = units / 10^scale. */
export interface Decimal {
  units: bigint;
  scale: number;
}

/** The exact decimal that `value` prints as (String(value): the shortest round-trip form). */
export function decimalOf(value: number): Decimal {
  if (!Number.isFinite(value)) throw new RangeError(`not a finite number: ${value}`);
  const text = String(value);
  const match = /^(-?)(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(text);
  if (match === null) throw new RangeError(`not a decimal: ${text}`);
  const [, sign = '', whole = '0', fraction = '', exponentText = '0'] = match;
  const exponent = Number(exponentText);
  let units = BigInt(`${whole}${fraction}`);
  let scale = fraction.length - exponent;
  if (scale < 0) {
    units *= 10n ** BigInt(-scale);
    scale = 0;
  }
  return { units: sign === '-' ? -units : units, scale };
}

/** `numerator / denominator` rounded half-up (a half goes up): both non-negative, the denominator above 0. */
export function divideHalfUp(numerator: bigint, denominator: bigint): bigint {
  if (numerator < 0n || denominator <= 0n) throw new RangeError('half-up division of a negative amount');
  // floor((2n + d) / 2d) = floor(n/d + 1/2).
  return (2n * numerator + denominator) / (2n * denominator);
}

/** True when `amount` is a finite number with at most 2 decimals (a whole number of cents). */
export function hasWholeCents(amount: number): boolean {
  return Number.isFinite(amount) && decimalOf(amount).scale <= 2;
}

/**
 * Cents of a non-negative amount with at most 2 decimals. More decimals are refused
 * (VALIDATION_ERROR naming `field`): rounding a reported amount would hide a client's bug.
 */
export function centsOf(amount: number, field: string): Cents {
  const { units, scale } = decimalOf(amount);
  if (units < 0n) throw errors.validation('Invalid request', { fields: [{ field, message: 'must be ≥ 0' }] });
  if (scale > 2) {
    // 12.50 prints as 12.5, so only a true third decimal gets here.
    throw errors.validation('Invalid request', {
      fields: [{ field, message: 'at most 2 decimals (cents)' }],
    });
  }
  return units * 10n ** BigInt(2 - scale);
}

/**
 * Cents of a non-negative amount, the exact decimal it prints as rounded half-up to a cent
 * (a price list may hold 9.995: 1000 cents, where `Math.round(9.995 * 100)` gives 999).
 */
export function roundedCentsOf(amount: number): Cents {
  const { units, scale } = decimalOf(amount);
  if (units < 0n) throw new RangeError(`a negative amount: ${amount}`);
  return scale <= 2 ? units * 10n ** BigInt(2 - scale) : divideHalfUp(units, 10n ** BigInt(scale - 2));
}

/** `cents × rate`, rounded half-up to a whole cent, with the rate taken as the exact decimal it prints as. */
export function royaltyCents(totalCents: Cents, rate: number): Cents {
  const { units, scale } = decimalOf(rate);
  if (units < 0n || totalCents < 0n) throw new RangeError('royalty of a negative amount or rate');
  return divideHalfUp(totalCents * units, 10n ** BigInt(scale));
}

/** `cents × part / whole` rounded half-up (a share of a period's fee); `part` within 0..whole. */
export function proratedCents(cents: Cents, part: bigint, whole: bigint): Cents {
  if (part < 0n || part > whole) throw new RangeError('a share outside 0..whole');
  return divideHalfUp(cents * part, whole);
}

/** The exact sum of amounts in cents. */
export function sumCents(parts: Iterable<Cents>): Cents {
  let total = 0n;
  for (const part of parts) total += part;
  return total;
}

/**
 * Cents as a JSON number of currency units: the closest number to the exact decimal (exact for
 * anything below 2^53 cents). A read model's SQL sum may hand over a number: it must be whole.
 */
export function amountOf(cents: Cents | number): number {
  if (typeof cents === 'number' && !Number.isSafeInteger(cents)) {
    throw new RangeError(`not a whole number of cents: ${cents}`);
  }
  return Number(cents) / 100;
}
