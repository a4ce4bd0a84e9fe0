import { startLicensingHarness, type LicensingHarness } from '../fixtures/licensing-harness';

// The expiry job, driven directly with a moved ManualClock (its interval is off in the harness).
let h: LicensingHarness;
beforeEach(async () => {
  h = await startLicensingHarness();
});
afterEach(async () => {
  await h.stop();
});

describe('the license expiry job', () => {
  it('when a license without autoRenew reaches expiresAt, then expired and license.expired', async () => {
    const client = h.platform();
    const { license } = await h.activeLicense(client, { autoRenew: false });
    h.clock.set('2026-12-22T09:59:59.000Z');
    expect(await h.running.expireDueLicenses()).toEqual({ expired: 0, renewed: 0, cancelled: 0 });
    h.clock.set('2026-12-22T10:00:00.000Z');
    expect(await h.running.expireDueLicenses()).toEqual({ expired: 1, renewed: 0, cancelled: 0 });
    expect((await client.call('GET', `/v1/svc/licenses/${license.id}`)).body.data.status).toBe('expired');
    const event = await h.waitForEvent('licensing.license.expired', (e) => e.data.licenseId === license.id);
    expect(event.data.status).toBe('expired');
    expect((await client.call('POST', `/v1/svc/licenses/${license.id}/renew`, { term: 1 })).status).toBe(409);
    expect((await client.call('DELETE', `/v1/svc/licenses/${license.id}`)).status).toBe(409);
  });

  it('when an autoRenew license reaches expiresAt, then it is renewed for another term per term passed', async () => {
    const client = h.platform();
    const { license } = await h.activeLicense(client);
    h.clock.set('2027-01-23T00:00:00.000Z');
    expect(await h.running.expireDueLicenses()).toEqual({ expired: 0, renewed: 2, cancelled: 0 });
    const detail = await client.call('GET', `/v1/svc/licenses/${license.id}`);
    expect(detail.body.data).toMatchObject({ status: 'active', expiresAt: '2027-02-22T10:00:00.000Z' });
    await h.waitForEvent('licensing.license.renewed', (e) => e.data.newExpiry === '2027-02-22T10:00:00.000Z');
    const renewals = h.delivered.filter(
      (e) => e.type === 'licensing.license.renewed' && e.data.licenseId === license.id,
    );
    expect(renewals.map((e) => e.data.newExpiry)).toEqual([
      '2027-01-22T10:00:00.000Z',
      '2027-02-22T10:00:00.000Z',
    ]);
  });

  it('when nothing is due, then a pass changes nothing', async () => {
    await h.activeLicense(h.platform());
    expect(await h.running.expireDueLicenses()).toEqual({ expired: 0, renewed: 0, cancelled: 0 });
  });
});
