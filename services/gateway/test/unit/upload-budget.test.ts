import { UploadBudget } from '../../src/domain/upload-budget';

const now = () => new Date('2026-11-29T00:00:00.000Z');

describe('UploadBudget', () => {
  it('when an account has an upload under way, then its second is refused and another account’s is not', () => {
    const budget = new UploadBudget({ inFlight: 4, perAccount: 1, now });
    const giveBack = budget.take('acct_a');
    expect(() => budget.take('acct_a')).toThrow(expect.objectContaining({ code: 'RATE_LIMITED' }));
    const other = budget.take('acct_b');
    giveBack();
    giveBack(); // twice is once
    expect(() => budget.take('acct_a')).not.toThrow();
    other();
  });

  it('when the replica reads its most uploads, then any account’s next is refused with retryAfter 1 until one ends', () => {
    const budget = new UploadBudget({ inFlight: 2, perAccount: 1, now });
    const first = budget.take('acct_a');
    budget.take('acct_b');
    let refusal: unknown;
    try {
      budget.take('acct_c');
    } catch (err) {
      refusal = err;
    }
    expect(refusal).toMatchObject({
      code: 'RATE_LIMITED',
      details: { limit: 2, remaining: 0, retryAfter: 1, resetAt: '2026-11-29T00:00:01.000Z' },
    });
    first();
    expect(() => budget.take('acct_c')).not.toThrow();
  });
});
