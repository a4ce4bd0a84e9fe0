import { AppError } from '@svc/errors';
import { amountOf, centsOf, royaltyCents } from '@svc/money';
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

  it('when revenue has other types, then the event breakdown sums them as other', () => {
    expect(revenueByType({ subscriptions: 100n, merch: 5n, donations: 7n })).toEqual({
      subscriptions: 100n,
      messages: 0n,
      tips: 0n,
      ads: 0n,
      other: 12n,
    });
  });
});
