import { startLicensingHarness, type LicensingHarness } from '../fixtures/licensing-harness';

let h: LicensingHarness;
beforeAll(async () => {
  h = await startLicensingHarness();
});
afterAll(async () => {
  await h.stop();
});

describe('POST /v1/svc/licenses/:id/revoke', () => {
  it('when the box owner revokes, then revoked, license.revoked, and revoking again is 409', async () => {
    const client = h.platform();
    const { box, license } = await h.activeLicense(client);
    const res = await box.owner.call('POST', `/v1/svc/licenses/${license.id}/revoke`, {
      reason: 'Terms broken',
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id: license.id,
      status: 'revoked',
      reason: 'Terms broken',
      revokedAt: '2026-11-22T10:00:00.000Z',
    });
    const event = await h.waitForEvent('licensing.license.revoked', (e) => e.data.licenseId === license.id);
    expect(event.data).toMatchObject({ status: 'revoked', reason: 'Terms broken' });
    expect((await client.call('GET', `/v1/svc/licenses/${license.id}`)).body.data.status).toBe('revoked');
    expect((await box.owner.call('POST', `/v1/svc/licenses/${license.id}/revoke`)).status).toBe(409);
  });

  it('when the licensee revokes, then 403; another platform, 404', async () => {
    const client = h.platform();
    const { license } = await h.activeLicense(client);
    expect((await client.call('POST', `/v1/svc/licenses/${license.id}/revoke`, {})).status).toBe(403);
    expect((await h.platform().call('POST', `/v1/svc/licenses/${license.id}/revoke`, {})).status).toBe(404);
  });
});
