import { AppError } from '@svc/errors';
import {
  amountOf,
  centsOf,
  decimalOf,
  divideHalfUp,
  hasWholeCents,
  proratedCents,
  roundedCentsOf,
  royaltyCents,
} from '../../src';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return err instanceof AppError ? err.code : 'not an AppError';
  }
  return undefined;
}

describe('money: worked examples', () => {
  it('when the rate is 0.125, then halves round up and everything else rounds to the nearest cent', () => {
    expect(royaltyCents(4n, 0.125)).toBe(1n); // 0.5 cent → 1
    expect(royaltyCents(12n, 0.125)).toBe(2n); // 1.5 → 2
    expect(royaltyCents(11n, 0.125)).toBe(1n); // 1.375 → 1
    expect(royaltyCents(10_000n, 0.125)).toBe(1_250n);
  });

  it('when amounts are large, then cents stay exact beyond float precision of the product', () => {
    const cents = centsOf(999_999_999_999.99, 'x');
    expect(cents).toBe(99_999_999_999_999n);
    // 99,999,999,999,999 × 0.15 = 14,999,999,999,999.85 cents, half-up to 15,000,000,000,000
    expect(royaltyCents(cents, 0.15)).toBe(15_000_000_000_000n);
    expect(royaltyCents(90_071_992_547_409n, 0.33)).toBe(29_723_757_540_645n);
  });

  it('when the rate is 0 or 1, then the royalty is nothing or everything', () => {
    expect(royaltyCents(12_345n, 0)).toBe(0n);
    expect(royaltyCents(12_345n, 1)).toBe(12_345n);
  });

  it('when a number prints in exponent form, then its decimal is still exact', () => {
    expect(decimalOf(1e-7)).toEqual({ units: 1n, scale: 7 });
    expect(decimalOf(1e21)).toEqual({ units: 10n ** 21n, scale: 0 });
    expect(decimalOf(0.125)).toEqual({ units: 125n, scale: 3 });
    expect(royaltyCents(10_000_000n, 1e-7)).toBe(1n);
  });

  it('when an amount has a third decimal or is negative, then centsOf refuses it with a VALIDATION_ERROR', () => {
    expect(codeOf(() => centsOf(10.005, 'revenue.tips'))).toBe('VALIDATION_ERROR');
    expect(codeOf(() => centsOf(-1, 'revenue.tips'))).toBe('VALIDATION_ERROR');
    expect(codeOf(() => centsOf(0.1 + 0.2, 'revenue.tips'))).toBe('VALIDATION_ERROR');
    expect(centsOf(12.5, 'x')).toBe(1_250n);
    expect(hasWholeCents(12.5)).toBe(true);
    expect(hasWholeCents(0.1 + 0.2)).toBe(false);
    expect(hasWholeCents(Number.NaN)).toBe(false);
  });

  it('when a price has a third decimal of 5, then it rounds half-up on its decimal form, where the float product rounded down', () => {
    // 9.995 * 100 is 999.4999999999999 in binary floating point: Math.round gave 999.
    expect(roundedCentsOf(9.995)).toBe(1_000n);
    expect(roundedCentsOf(1.005)).toBe(101n);
    expect(roundedCentsOf(1.004)).toBe(100n);
    expect(roundedCentsOf(19.99)).toBe(1_999n);
    expect(roundedCentsOf(0)).toBe(0n);
    expect(() => roundedCentsOf(-0.01)).toThrow(RangeError);
  });

  it('when cents are presented, then the number is the decimal, and a fractional number of cents is refused', () => {
    expect(amountOf(1n)).toBe(0.01);
    expect(amountOf(606n)).toBe(6.06);
    expect(amountOf(1999)).toBe(19.99);
    expect(() => amountOf(0.5)).toThrow(RangeError);
  });

  it('when dividing or prorating outside the domain, then it is a RangeError, never a silent wrong figure', () => {
    expect(() => divideHalfUp(-1n, 2n)).toThrow(RangeError);
    expect(() => divideHalfUp(1n, 0n)).toThrow(RangeError);
    expect(() => proratedCents(100n, 3n, 2n)).toThrow(RangeError);
    expect(proratedCents(1_000n, 1n, 2n)).toBe(500n);
    expect(proratedCents(1_001n, 1n, 2n)).toBe(501n); // 500.5 → 501
  });
});
