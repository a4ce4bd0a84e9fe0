import { startBillingHarness, type BillingHarness } from '../fixtures/billing-harness';

let h: BillingHarness;

beforeAll(async () => {
  h = await startBillingHarness();
});
afterAll(() => h.stop());

describe('GET /revenue/balance', () => {
  it('when a platform has reported and corrected, then its balance is the sum of current royalties and adds up with the owners’ receivables', async () => {
    const licensee = h.platform();
    const ownerA = h.platform();
    const ownerB = h.platform();
    const a = await h.activeLicense(licensee, ownerA, { royaltyRate: 0.15 });
    const b = await h.activeLicense(licensee, ownerB, { royaltyRate: 0.2 });
    const report = (id: string, period: string, revenue: Record<string, number>) =>
      licensee.call('POST', `/v1/svc/licenses/${id}/usage`, { period, metrics: {}, revenue });

    await report(a.licenseId, '2026-10', { subscriptions: 33.33 }); // 5.00
    await report(a.licenseId, '2026-11', { subscriptions: 100 }); // 15.00
    await report(b.licenseId, '2026-10', { tips: 10 }); // 2.00
    await report(b.licenseId, '2026-10', { tips: 50.05 }); // corrected: 10.01

    const balance = await licensee.call('GET', '/revenue/balance');
    expect(balance.status).toBe(200);
    expect(balance.body).toEqual({
      currency: 'USD',
      balance: 30.01,
      receivable: 0,
      fee_basis: 'prorated_calendar_month',
      breakdown: { fees: { balance: 0, receivable: 0 }, royalties: { balance: 30.01, receivable: 0 } },
      pending_payouts: [
        {
          kind: 'royalty',
          license_id: expect.any(String),
          period: '2026-10',
          amount: expect.any(Number),
          due_date: '2026-11-15T00:00:00.000Z',
          recipient: expect.any(String),
        },
        {
          kind: 'royalty',
          license_id: expect.any(String),
          period: '2026-10',
          amount: expect.any(Number),
          due_date: '2026-11-15T00:00:00.000Z',
          recipient: expect.any(String),
        },
        {
          kind: 'royalty',
          license_id: a.licenseId,
          period: '2026-11',
          amount: 15,
          due_date: '2026-12-15T00:00:00.000Z',
          recipient: ownerA.platformId,
        },
      ],
    });
    const payouts = balance.body.pending_payouts as {
      license_id: string;
      amount: number;
      recipient: string;
    }[];
    expect(payouts.find((p) => p.license_id === b.licenseId)).toMatchObject({
      amount: 10.01,
      recipient: ownerB.platformId,
    });
    const sumCents = payouts.reduce((sum, p) => sum + Math.round(p.amount * 100), 0);
    expect(sumCents).toBe(3001);

    const receivableA = (await ownerA.call('GET', '/revenue/balance')).body;
    const receivableB = (await ownerB.call('GET', '/revenue/balance')).body;
    expect(receivableA).toMatchObject({ balance: 0, receivable: 20, pending_payouts: [] });
    expect(receivableB).toMatchObject({ balance: 0, receivable: 10.01, pending_payouts: [] });
    expect(Math.round(receivableA.receivable * 100) + Math.round(receivableB.receivable * 100)).toBe(3001);
  });

  it('when a platform has no ledger entries, then its balance is zero in USD', async () => {
    const reply = await h.platform().call('GET', '/revenue/balance');
    expect(reply.body).toEqual({
      currency: 'USD',
      balance: 0,
      receivable: 0,
      fee_basis: 'prorated_calendar_month',
      breakdown: { fees: { balance: 0, receivable: 0 }, royalties: { balance: 0, receivable: 0 } },
      pending_payouts: [],
    });
  });

  it('when a platform reads its balance, then another platform’s royalties never show', async () => {
    const licensee = h.platform();
    const other = h.platform();
    const license = await h.activeLicense(licensee, h.platform());
    await licensee.call('POST', `/v1/svc/licenses/${license.licenseId}/usage`, {
      period: '2026-11',
      metrics: {},
      revenue: { ads: 10 },
    });
    expect((await other.call('GET', '/revenue/balance')).body).toMatchObject({
      balance: 0,
      pending_payouts: [],
    });
  });

  it('when no internal token is sent, then 401', async () => {
    expect((await h.raw('GET', '/revenue/balance')).status).toBe(401);
  });
});
