import { startLicensingHarness, type LicensingHarness } from '../fixtures/licensing-harness';

let h: LicensingHarness;
beforeAll(async () => {
  h = await startLicensingHarness();
});
afterAll(async () => {
  await h.stop();
});

describe('DELETE /v1/svc/licenses/:id', () => {
  it('when cancelled without a body, then cancelled now and license.cancelled (immediate)', async () => {
    const client = h.platform();
    const { license } = await h.activeLicense(client);
    const res = await client.call('DELETE', `/v1/svc/licenses/${license.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id: license.id,
      status: 'cancelled',
      effectiveDate: 'immediate',
      cancelledAt: '2026-11-22T10:00:00.000Z',
    });
    const event = await h.waitForEvent('licensing.license.cancelled', (e) => e.data.licenseId === license.id);
    expect(event.data).toMatchObject({ status: 'cancelled', effectiveDate: 'immediate', reason: null });
    const again = await client.call('DELETE', `/v1/svc/licenses/${license.id}`, { reason: 'twice' });
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('INVALID_STATE');
  });

  it('when cancelled at the end of the billing period, then active until the month ends, then cancelled by the job', async () => {
    const client = h.platform();
    const { license } = await h.activeLicense(client);
    const res = await client.call('DELETE', `/v1/svc/licenses/${license.id}`, {
      reason: 'Moving on',
      effectiveDate: 'end_of_billing_period',
    });
    expect(res.body.data).toEqual({
      id: license.id,
      status: 'active',
      effectiveDate: 'end_of_billing_period',
      cancelsAt: '2026-12-01T00:00:00.000Z',
    });
    expect(
      (
        await client.call('DELETE', `/v1/svc/licenses/${license.id}`, {
          effectiveDate: 'end_of_billing_period',
        })
      ).status,
    ).toBe(409);
    await h.running.expireDueLicenses();
    expect((await client.call('GET', `/v1/svc/licenses/${license.id}`)).body.data.status).toBe('active');
    h.clock.set('2026-12-01T00:00:00.000Z');
    await h.running.expireDueLicenses();
    expect((await client.call('GET', `/v1/svc/licenses/${license.id}`)).body.data.status).toBe('cancelled');
    const event = await h.waitForEvent('licensing.license.cancelled', (e) => e.data.licenseId === license.id);
    expect(event.data).toMatchObject({
      effectiveDate: 'end_of_billing_period',
      effectiveAt: '2026-12-01T00:00:00.000Z',
      reason: 'Moving on',
    });
  });

  it('when the body is invalid, then 400 naming the field', async () => {
    const client = h.platform();
    const { license } = await h.activeLicense(client);
    const res = await client.call('DELETE', `/v1/svc/licenses/${license.id}`, { effectiveDate: 'tomorrow' });
    expect(res.status).toBe(400);
    expect(res.body.error.details.fields[0].field).toBe('effectiveDate');
  });

  it('when another platform (even the box owner) cancels, then 404 and the license stays active', async () => {
    const client = h.platform();
    const { box, license } = await h.activeLicense(client);
    expect((await h.platform().call('DELETE', `/v1/svc/licenses/${license.id}`)).status).toBe(404);
    expect((await box.owner.call('DELETE', `/v1/svc/licenses/${license.id}`)).status).toBe(404);
    expect((await client.call('GET', `/v1/svc/licenses/${license.id}`)).body.data.status).toBe('active');
  });
});
