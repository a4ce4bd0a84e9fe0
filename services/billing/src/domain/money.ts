import { errors } from '@svc/errors';

// Money is integer cents (BigInt) from the first moment: an amount is read from its shortest
// decimal form (what JSON wrote), never multiplied as a binary float.

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

/**
 * Cents of a non-negative amount with at most 2 decimals. More decimals are refused
 * (VALIDATION_ERROR naming `field`): rounding a reported amount would hide a client's bug.
 */
export function centsOf(amount: number, field: string): bigint {
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

/** `cents × rate`, rounded half-up to a whole cent, with the rate taken as the exact decimal it prints as. */
export function royaltyCents(totalCents: bigint, rate: number): bigint {
  const { units, scale } = decimalOf(rate);
  if (units < 0n || totalCents < 0n) throw new RangeError('royalty of a negative amount or rate');
  const denominator = 10n ** BigInt(scale);
  // Half-up for non-negative values: floor((x·2 + d) / 2d).
  return (totalCents * units * 2n + denominator) / (2n * denominator);
}

/** Cents as a JSON number of currency units (exact for anything below 2^53 cents). */
export function amountOf(cents: bigint): number {
  return Number(cents) / 100;
}
