import { startBillingHarness, type BillingHarness } from '../fixtures/billing-harness';

// The worked example of the README's "Licensing and billing: how the money is computed" section,
// run as written (the harness clock stands at 2026-11-22T10:00Z).

let h: BillingHarness;
beforeAll(async () => {
  h = await startBillingHarness();
});
afterAll(() => h.stop());

describe('README worked example', () => {
  it('when a 9.99 license from 16 October and a 15% royalty on 33.33 are billed, then the balance is 5.16 + 9.99 + 5.00 = 20.15', async () => {
    const licensee = h.platform();
    const owner = h.platform();
    await h.activeLicense(licensee, owner, {
      tier: 'personal',
      monthlyFeeCents: 999,
      royaltyRate: 0,
      validFrom: '2026-10-16T00:00:00.000Z',
    });
    const monetize = await h.activeLicense(licensee, owner, {
      monthlyFeeCents: 0,
      royaltyRate: 0.15,
      validFrom: '2026-10-01T00:00:00.000Z',
    });
    const report = await licensee.call('POST', `/v1/svc/licenses/${monetize.licenseId}/usage`, {
      period: '2026-10',
      metrics: { subscribers: 12 },
      revenue: { subscriptions: 33.33 },
    });
    expect(report.body.data.royaltyDue).toBe(5);
    const balance = await licensee.call('GET', '/revenue/balance');
    expect(balance.body).toMatchObject({
      balance: 20.15,
      breakdown: { fees: { balance: 15.15 }, royalties: { balance: 5 } },
    });
    const october = balance.body.pending_payouts.filter((p: { period: string }) => p.period === '2026-10');
    expect(october.map((p: { kind: string; amount: number }) => [p.kind, p.amount]).sort()).toEqual([
      ['fee', 5.16],
      ['royalty', 5],
    ]);
    expect((await owner.call('GET', '/revenue/balance')).body.receivable).toBe(20.15);
  });
});
