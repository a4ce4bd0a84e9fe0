import { usageFiguresSchema, usagePath } from '@svc/contracts/billing';
import { serviceClaims } from '@svc/service-kit';
import { internalClient } from '@svc/test-kit';
import { JWT_SECRET, startBillingHarness, type BillingHarness } from '../fixtures/billing-harness';

// docs/adr/0016: billing owns usage. Licensing shows a license's usage of the current period in
// its detail by asking this internal route, instead of keeping a copy of billing.usage.reported.

let h: BillingHarness;
beforeAll(async () => {
  h = await startBillingHarness();
});
afterAll(() => h.stop());

describe('GET /internal/licenses/:id/usage/:period (for licensing)', () => {
  const licensing = () => internalClient(h.running.url, JWT_SECRET, serviceClaims('licensing', 'sandbox'));

  it('when a period was reported and corrected, then licensing gets the current version, messages falling back to interactions', async () => {
    const licensee = h.platform();
    const license = await h.activeLicense(licensee, h.platform());
    const path = `/v1/svc/licenses/${license.licenseId}/usage`;
    const first = {
      period: '2026-10',
      metrics: { subscribers: 1, messages: 1 },
      revenue: { subscriptions: 1 },
    };
    expect((await licensee.call('POST', path, first)).status).toBe(201);
    const corrected = {
      period: '2026-10',
      metrics: { subscribers: 40, interactions: 900 },
      revenue: { subscriptions: 20, messages: 13.33 },
    };
    expect((await licensee.call('POST', path, corrected)).status).toBe(200);

    const reply = await licensing().call('GET', usagePath(license.licenseId, '2026-10'));
    expect(reply.status).toBe(200);
    expect(usageFiguresSchema.parse(reply.body).data).toEqual({
      licenseId: license.licenseId,
      period: '2026-10',
      version: 2,
      subscribers: 40,
      messages: 900,
      revenueCents: '3333',
      royaltyDueCents: '500', // 15 % of 33.33 = 4.9995, half-up
    });
  });

  it('when nothing was reported for the period, then the figures are zeros at version 0', async () => {
    const reply = await licensing().call('GET', usagePath('lic_never', '2026-11'));
    expect(reply.status).toBe(200);
    expect(reply.body.data).toEqual({
      licenseId: 'lic_never',
      period: '2026-11',
      version: 0,
      subscribers: 0,
      messages: 0,
      revenueCents: '0',
      royaltyDueCents: '0',
    });
  });

  it('when a platform token asks (even the licensee), then 404: the route is for services only', async () => {
    const licensee = h.platform();
    const license = await h.activeLicense(licensee, h.platform());
    expect((await licensee.call('GET', usagePath(license.licenseId, '2026-11'))).status).toBe(404);
    expect((await h.raw('GET', usagePath(license.licenseId, '2026-11'))).status).toBe(401);
  });

  it('when the period is not YYYY-MM, then 400', async () => {
    const reply = await licensing().call('GET', usagePath('lic_x', '2026-13'));
    expect(reply.status).toBe(400);
    expect(reply.body.error.code).toBe('VALIDATION_ERROR');
  });
});
