import { startLicensingHarness, type LicensingHarness } from '../fixtures/licensing-harness';

let h: LicensingHarness;
beforeAll(async () => {
  h = await startLicensingHarness();
});
afterAll(async () => {
  await h.stop();
});

describe('POST /v1/svc/licenses/:id/renew', () => {
  it('when an active license is renewed, then the new expiry is term months after the previous one', async () => {
    const client = h.platform();
    const { license } = await h.activeLicense(client);
    const res = await client.call('POST', `/v1/svc/licenses/${license.id}/renew`, { term: 6 });
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id: license.id,
      status: 'active',
      previousExpiry: '2026-12-22T10:00:00.000Z',
      newExpiry: '2027-06-22T10:00:00.000Z',
      tier: 'personal',
      monthlyFee: 9.99,
      currency: 'USD',
    });
    const event = await h.waitForEvent('licensing.license.renewed', (e) => e.data.licenseId === license.id);
    expect(event.data).toMatchObject({
      previousExpiry: '2026-12-22T10:00:00.000Z',
      newExpiry: '2027-06-22T10:00:00.000Z',
    });
  });

  it('when renewed with an upgrade to a reviewed tier, then the owner reviews it and approval re-prices the license', async () => {
    const client = h.platform();
    const { box, license } = await h.activeLicense(client);
    const res = await client.call('POST', `/v1/svc/licenses/${license.id}/renew`, {
      term: 1,
      tier: 'commercial',
    });
    expect(res.status).toBe(202);
    expect(res.body.data).toMatchObject({
      tier: 'personal',
      monthlyFee: 9.99,
      newExpiry: license.expiresAt,
      pendingUpgrade: { tier: 'commercial', status: 'pending', pricing: { monthlyFee: 199 } },
    });
    const before = await client.call('GET', `/v1/svc/licenses/${license.id}`);
    expect(before.body.data).toMatchObject({ tier: 'personal', monthlyFee: 9.99 });
    const approved = await box.owner.call(
      'POST',
      `/v1/svc/license-requests/${res.body.data.pendingUpgrade.requestId}/approve`,
    );
    expect(approved.status).toBe(200);
    expect(approved.body.data.license).toMatchObject({ id: license.id, tier: 'commercial', monthlyFee: 199 });
    const detail = await client.call('GET', `/v1/svc/licenses/${license.id}`);
    expect(detail.body.data).toMatchObject({
      tier: 'commercial',
      monthlyFee: 199,
      expiresAt: '2027-01-22T10:00:00.000Z',
    });
  });

  it('when the body is invalid, then 400 naming the field', async () => {
    const client = h.platform();
    const { license } = await h.activeLicense(client);
    for (const [body, field] of [
      [{}, 'term'],
      [{ term: 0 }, 'term'],
      [{ term: 37 }, 'term'],
      [{ term: 1.5 }, 'term'],
      [{ term: 1, tier: 'gold' }, 'tier'],
    ] as const) {
      const res = await client.call('POST', `/v1/svc/licenses/${license.id}/renew`, body);
      expect(res.status).toBe(400);
      expect(res.body.error.details.fields[0].field).toBe(field);
    }
  });

  it.each([
    ['cancelled', (h: LicensingHarness, c: any, id: string) => c.call('DELETE', `/v1/svc/licenses/${id}`)],
    [
      'revoked',
      (h: LicensingHarness, c: any, id: string, owner: any) =>
        owner.call('POST', `/v1/svc/licenses/${id}/revoke`, {}),
    ],
  ])('when the license is %s, then renewing is 409 INVALID_STATE', async (_state, end) => {
    const client = h.platform();
    const { box, license } = await h.activeLicense(client);
    expect((await end(h, client, license.id, box.owner)).status).toBe(200);
    const res = await client.call('POST', `/v1/svc/licenses/${license.id}/renew`, { term: 1 });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('INVALID_STATE');
  });

  it('when another platform renews, then 404', async () => {
    const { license } = await h.activeLicense(h.platform());
    expect(
      (await h.platform().call('POST', `/v1/svc/licenses/${license.id}/renew`, { term: 1 })).status,
    ).toBe(404);
  });
});
