import fc from 'fast-check';
import {
  amountOf,
  centsOf,
  decimalOf,
  divideHalfUp,
  proratedCents,
  roundedCentsOf,
  royaltyCents,
  sumCents,
} from '../../src';

// Amounts a client can send: whole cents up to a trillion currency units (below 2^53 cents).
const cents = fc.bigInt({ min: 0n, max: 100_000_000_000_000n });
// Rates as JSON carries them: up to 4 decimals within 0..1.
const rate = fc.integer({ min: 0, max: 10_000 }).map((n) => n / 10_000);

describe('money: properties', () => {
  it('when any 2-decimal amount is read, then its cents are exact and present back as the same number', () => {
    fc.assert(
      fc.property(cents, (c) => {
        const value = Number(c) / 100;
        expect(centsOf(value, 'x')).toBe(c);
        expect(amountOf(c)).toBe(value);
      }),
    );
  });

  it('when any finite number is read as a decimal, then the decimal prints back as the same number', () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), (value) => {
        const { units, scale } = decimalOf(value);
        expect(Number(`${units}e-${scale}`)).toBe(value === 0 ? 0 : value);
      }),
    );
  });

  it('when dividing half-up, then the result is the nearest integer and an exact half goes up', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 18n }), fc.bigInt({ min: 1n, max: 10n ** 9n }), (n, d) => {
        const q = divideHalfUp(n, d);
        // |n/d - q| ≤ 1/2, and = 1/2 only from below (n/d = q - 1/2 never happens).
        expect(2n * (n - q * d)).toBeLessThan(d);
        expect(2n * (n - q * d)).toBeGreaterThanOrEqual(-d);
      }),
    );
  });

  it('when a royalty is computed, then it is the half-up rounding of the exact product, between 0 and the total', () => {
    fc.assert(
      fc.property(cents, rate, (total, r) => {
        const royalty = royaltyCents(total, r);
        const exact10k = total * BigInt(Math.round(r * 10_000)); // the product in 1/10,000 cents
        expect(royalty).toBe((exact10k + 5_000n) / 10_000n);
        expect(royalty >= 0n && royalty <= total).toBe(true);
      }),
    );
  });

  it('when the total grows, then the royalty never shrinks', () => {
    fc.assert(
      fc.property(cents, cents, rate, (a, b, r) => {
        const [low, high] = a <= b ? [a, b] : [b, a];
        expect(royaltyCents(low, r) <= royaltyCents(high, r)).toBe(true);
      }),
    );
  });

  it('when revenue parts are summed, then the total of the amounts is the sum of the parts, exactly', () => {
    // docs/spec/service-interface.md: totalRevenue is the sum of the revenue amounts.
    fc.assert(
      fc.property(fc.array(cents, { maxLength: 20 }), (parts) => {
        const total = sumCents(parts.map((c) => centsOf(Number(c) / 100, 'x')));
        expect(total).toBe(parts.reduce((s, c) => s + c, 0n));
        expect(amountOf(total)).toBe(Number(parts.reduce((s, c) => s + c, 0n)) / 100);
      }),
    );
  });

  it('when ten thousand small amounts are added, then the sum does not drift (where a float sum does)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 99 }), { minLength: 10_000, maxLength: 10_000 }),
        (parts) => {
          const total = sumCents(parts.map((c) => centsOf(c / 100, 'x')));
          expect(total).toBe(BigInt(parts.reduce((s, c) => s + c, 0)));
        },
      ),
      { numRuns: 20 },
    );
    // The reason for integer cents: 0.1 added ten thousand times as a float is not 1000.
    let float = 0;
    for (let i = 0; i < 10_000; i += 1) float += 0.1;
    expect(float).not.toBe(1000);
    expect(amountOf(sumCents(Array.from({ length: 10_000 }, () => centsOf(0.1, 'x'))))).toBe(1000);
  });

  it('when a price is rounded to cents, then it is the half-up rounding of its decimal form', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 15n }), (thousandths) => {
        const value = Number(thousandths) / 1000;
        expect(roundedCentsOf(value)).toBe((thousandths + 5n) / 10n);
      }),
    );
  });

  it('when a fee is prorated over the parts of a whole, then the parts never drift by more than a cent each, and the whole is the fee', () => {
    fc.assert(
      fc.property(
        cents,
        fc.bigInt({ min: 1n, max: 10n ** 10n }),
        fc.bigInt({ min: 0n, max: 10n ** 10n }),
        (fee, whole, cut) => {
          const part = cut % (whole + 1n);
          expect(proratedCents(fee, whole, whole)).toBe(fee);
          expect(proratedCents(fee, 0n, whole)).toBe(0n);
          const split = proratedCents(fee, part, whole) + proratedCents(fee, whole - part, whole);
          expect(split - fee <= 1n && fee - split <= 1n).toBe(true);
        },
      ),
    );
  });
});
