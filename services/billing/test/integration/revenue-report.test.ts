import { usageReported } from '@svc/contracts/billing';
import { startBillingHarness, type BillingHarness, type Client } from '../fixtures/billing-harness';

let h: BillingHarness;
let licensee: Client;
let owner: Client;

beforeAll(async () => {
  h = await startBillingHarness();
  licensee = h.platform();
  owner = h.platform();
});
afterAll(() => h.stop());

describe('POST /revenue/report (second family)', () => {
  it('when a platform reports revenue, then it is the same usage report, answered in snake_case', async () => {
    const license = await h.activeLicense(licensee, owner, { royaltyRate: 0.125 });
    const reply = await licensee.call('POST', '/revenue/report', {
      license_id: license.licenseId,
      period: '2026-11',
      metrics: { interactions: 5000, unique_users: 321, revenue_generated: 1000.04 },
    });
    expect(reply.status).toBe(201);
    expect(reply.body).toEqual({
      license_id: license.licenseId,
      period: '2026-11',
      version: 1,
      total_revenue: 1000.04,
      royalty_due: 125.01, // 125.005 half-up
      payment_status: 'pending',
      due_date: '2026-12-15T00:00:00.000Z',
    });
    const event = (await h.outbox()).find(
      (e) => e.type === usageReported.type && e.data.licenseId === license.licenseId,
    );
    expect(event?.data).toMatchObject({
      users: 321,
      metrics: { messages: 5000, subscribers: 321 },
      revenueCents: { subscriptions: '0', messages: '0', tips: '0', ads: '0', other: '100004' },
    });

    // The reference family sees the same report: a second report there is its correction.
    const correction = await licensee.call('POST', `/v1/svc/licenses/${license.licenseId}/usage`, {
      period: '2026-11',
      metrics: {},
      revenue: { other: 2000 },
    });
    expect(correction.status).toBe(200);
    expect(correction.body.data).toMatchObject({ version: 2, royaltyDue: 250 });
  });

  it('when the body is malformed, then 400 VALIDATION_ERROR names the snake_case fields', async () => {
    const reply = await licensee.call('POST', '/revenue/report', {
      license_id: 'lic_x',
      period: 'November',
      metrics: { interactions: 1.5, unique_users: -2 },
    });
    expect(reply.status).toBe(400);
    const fields = reply.body.error.details.fields.map((f: { field: string }) => f.field);
    expect(fields).toEqual(
      expect.arrayContaining([
        'period',
        'metrics.interactions',
        'metrics.unique_users',
        'metrics.revenue_generated',
      ]),
    );
  });

  it('when another platform reports on a license, then 404 NOT_FOUND', async () => {
    const license = await h.activeLicense(licensee, owner);
    const reply = await h.platform().call('POST', '/revenue/report', {
      license_id: license.licenseId,
      period: '2026-11',
      metrics: { interactions: 1, unique_users: 1, revenue_generated: 1 },
    });
    expect(reply.status).toBe(404);
    expect(reply.body.error.code).toBe('NOT_FOUND');
  });
});
