import { AppError } from '@svc/errors';
import { amountOf, centsOf, decimalOf, royaltyCents } from '../../src/domain/money';
import { revenueByType, revenueCentsOf, totalOf } from '../../src/domain/usage-report';

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn();
  } catch (err) {
    return err instanceof AppError ? err.code : 'not an AppError';
  }
  return undefined;
}

describe('royalty arithmetic', () => {
  it('when 0.15 is applied to 33.33, then 4.9995 rounds half-up to 5.00 exactly', () => {
    expect(royaltyCents(centsOf(33.33, 'x'), 0.15)).toBe(500n);
    expect(amountOf(royaltyCents(3333n, 0.15))).toBe(5);
  });

  it('when amounts like 0.1 and 0.2 are summed, then the total is 0.30 with no drift', () => {
    const total = totalOf(revenueCentsOf({ subscriptions: 0.1, messages: 0.2 }));
    expect(total).toBe(30n);
    expect(amountOf(total)).toBe(0.3);
    // 1.005 (a float below 1.005) is refused, but 1.01 + 2.02 + 3.03 is exactly 6.06.
    expect(totalOf(revenueCentsOf({ a: 1.01, b: 2.02, c: 3.03 }))).toBe(606n);
  });

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

  it('when an amount has a third decimal or is negative, then it is a VALIDATION_ERROR naming the field', () => {
    expect(codeOf(() => centsOf(10.005, 'revenue.tips'))).toBe('VALIDATION_ERROR');
    expect(codeOf(() => centsOf(-1, 'revenue.tips'))).toBe('VALIDATION_ERROR');
    expect(codeOf(() => centsOf(0.3000000000000001, 'revenue.tips'))).toBe('VALIDATION_ERROR');
    try {
      revenueCentsOf({ ads: 1.234 });
    } catch (err) {
      expect((err as AppError).details).toEqual({
        fields: [{ field: 'revenue.ads', message: 'at most 2 decimals (cents)' }],
      });
    }
    expect(centsOf(12.5, 'x')).toBe(1_250n);
    expect(centsOf(7, 'x')).toBe(700n);
  });

  it('when a number prints in exponent form, then its decimal is still exact', () => {
    expect(decimalOf(1e-7)).toEqual({ units: 1n, scale: 7 });
    expect(decimalOf(1e21)).toEqual({ units: 10n ** 21n, scale: 0 });
    expect(decimalOf(0.125)).toEqual({ units: 125n, scale: 3 });
    expect(royaltyCents(10_000_000n, 1e-7)).toBe(1n);
  });

  it('when revenue has other types, then the event breakdown sums them as other', () => {
    expect(revenueByType({ subscriptions: 100n, merch: 5n, donations: 7n })).toEqual({
      subscriptions: 100,
      messages: 0,
      tips: 0,
      ads: 0,
      other: 12,
    });
  });
});
