import {
  LICENSE_CONFIG,
  requestBody,
  startLicensingHarness,
  type LicensingHarness,
} from '../fixtures/licensing-harness';

// Issue #15: the owner's price list is the only source of a price; one license per tier; no
// license on one's own box, on TEAM boxes, or past the owner's BLOCK_ALL.

let h: LicensingHarness;
beforeAll(async () => {
  h = await startLicensingHarness();
});
afterAll(async () => {
  await h.stop();
});

const PRICED_ONLY = {
  licenseTypes: {
    personal: { price: 9, autoApprove: true },
    creator: { price: 49, autoApprove: false },
    commercial: { price: 199, autoApprove: false },
  },
};

describe('POST /v1/svc/licenses/request against the price list', () => {
  it('when the tier is not on the price list, then 409 naming the offered tiers, and no request is made', async () => {
    const box = await h.box('LICENSE', PRICED_ONLY);
    const client = h.platform();
    const res = await client.call(
      'POST',
      '/v1/svc/licenses/request',
      requestBody(box.boxId, { tier: 'enterprise' }),
    );
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({
      code: 'INVALID_STATE',
      details: { tier: 'enterprise', offeredTiers: ['personal', 'creator', 'commercial'] },
    });
    const owners = await box.owner.call('GET', `/v1/svc/boxes/${box.boxId}/license-requests`);
    expect(owners.body.meta.total).toBe(0);
  });

  it('when enterprise is offered, then it waits without a price and the owner prices it at approval', async () => {
    const box = await h.box('LICENSE', { licenseTypes: { ...PRICED_ONLY.licenseTypes, enterprise: {} } });
    const client = h.platform();
    const res = await client.call(
      'POST',
      '/v1/svc/licenses/request',
      requestBody(box.boxId, { tier: 'enterprise' }),
    );
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ status: 'pending', pricing: { monthlyFee: null } });
    const unpriced = await box.owner.call('POST', `/v1/svc/license-requests/${res.body.data.id}/approve`, {});
    expect(unpriced.status).toBe(400);
    expect(unpriced.body.error.details.fields[0].field).toBe('monthlyFee');
    const approved = await box.owner.call('POST', `/v1/svc/license-requests/${res.body.data.id}/approve`, {
      monthlyFee: 2500,
    });
    expect(approved.status).toBe(200);
    expect(approved.body.data.license).toMatchObject({ tier: 'enterprise', monthlyFee: 2500 });
  });

  it('when the owner tries to override a listed price at approval, then 400', async () => {
    const box = await h.box('LICENSE', PRICED_ONLY);
    const request = await h.request(h.platform(), box, { tier: 'creator' });
    const res = await box.owner.call('POST', `/v1/svc/license-requests/${request.id}/approve`, {
      monthlyFee: 1,
    });
    expect(res.status).toBe(400);
  });

  it('when the owner raised the price before approving, then the license has the current list price', async () => {
    const box = await h.box('LICENSE', PRICED_ONLY);
    const request = await h.request(h.platform(), box, { tier: 'creator' });
    await h.updateBox(
      box,
      'LICENSE',
      { licenseTypes: { ...PRICED_ONLY.licenseTypes, creator: { price: 59 } } },
      new Date('2026-11-02T00:00:00.000Z'),
    );
    const approved = await box.owner.call('POST', `/v1/svc/license-requests/${request.id}/approve`);
    expect(approved.body.data.license.monthlyFee).toBe(59);
  });

  it('when the platform already holds an active license of that tier on the box, then 409 with its id', async () => {
    const client = h.platform();
    const { box, license } = await h.activeLicense(client);
    const again = await client.call(
      'POST',
      '/v1/svc/licenses/request',
      requestBody(box.boxId, { tier: 'personal' }),
    );
    expect(again.status).toBe(409);
    expect(again.body.error.details).toMatchObject({ licenseId: license.id });
    const list = await client.call('GET', `/v1/svc/licenses?boxId=${box.boxId}&status=active`);
    expect(list.body.meta.total).toBe(1);
  });

  it('when the box owner requests a license on its own box, then 409', async () => {
    const box = await h.box('LICENSE', LICENSE_CONFIG);
    const res = await box.owner.call(
      'POST',
      '/v1/svc/licenses/request',
      requestBody(box.boxId, { tier: 'personal' }),
    );
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('INVALID_STATE');
  });

  it.each(['TEAM', 'BLOCK_COMMERCIAL', 'BLOCK_ALL'])(
    'when the box is %s, then 409: not licensable',
    async (policy) => {
      const box = await h.box(policy);
      const res = await h.platform().call('POST', '/v1/svc/licenses/request', requestBody(box.boxId));
      expect(res.status).toBe(409);
      expect(res.body.error.details).toMatchObject({ offeredTiers: [] });
    },
  );
});

describe('POST /v1/svc/licenses/:id/renew against the price list', () => {
  it('when renewing to a tier the box does not offer, then 409 and the license is unchanged', async () => {
    const client = h.platform();
    const box = await h.box('LICENSE', PRICED_ONLY);
    const request = await h.request(client, box, { tier: 'personal' });
    const read = await client.call('GET', `/v1/svc/licenses/request/${request.id}`);
    const id = read.body.data.license.id;
    const res = await client.call('POST', `/v1/svc/licenses/${id}/renew`, { term: 12, tier: 'enterprise' });
    expect(res.status).toBe(409);
    expect(res.body.error.details.offeredTiers).toEqual(['personal', 'creator', 'commercial']);
    const detail = await client.call('GET', `/v1/svc/licenses/${id}`);
    expect(detail.body.data).toMatchObject({ tier: 'personal', monthlyFee: 9 });
  });

  it('when the owner switched the box to BLOCK_ALL, then renewing is 409 and the license runs to its expiry', async () => {
    const client = h.platform();
    const { box, license } = await h.activeLicense(client);
    await h.updateBox(box, 'BLOCK_ALL', {}, new Date('2026-11-03T00:00:00.000Z'));
    const res = await client.call('POST', `/v1/svc/licenses/${license.id}/renew`, { term: 12 });
    expect(res.status).toBe(409);
    const detail = await client.call('GET', `/v1/svc/licenses/${license.id}`);
    expect(detail.body.data).toMatchObject({ status: 'active', expiresAt: license.expiresAt });
  });

  it('when the owner raised the price, then a same-tier renewal applies the current list price and shows it', async () => {
    const client = h.platform();
    const { box, license } = await h.activeLicense(client);
    await h.updateBox(
      box,
      'LICENSE',
      {
        ...LICENSE_CONFIG,
        licenseTypes: { ...LICENSE_CONFIG.licenseTypes, personal: { price: 14.5, autoApprove: true } },
      },
      new Date('2026-11-04T00:00:00.000Z'),
    );
    const res = await client.call('POST', `/v1/svc/licenses/${license.id}/renew`, { term: 1 });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ tier: 'personal', monthlyFee: 14.5 });
    const detail = await client.call('GET', `/v1/svc/licenses/${license.id}`);
    expect(detail.body.data.monthlyFee).toBe(14.5);
  });
});

describe('GET /licensing/terms for identities that cannot be licensed', () => {
  it.each(['TEAM', 'BLOCK_ALL'])(
    'when the box is %s, then no price and auto_approve false',
    async (policy) => {
      const box = await h.box(policy);
      const res = await h.platform().call('GET', `/licensing/terms/${box.boxId}`);
      expect(res.status).toBe(200);
      expect(res.body).toMatchObject({ licensable: false, auto_approve: false, pricing: null });
    },
  );

  it('when a second-family request asks for a tier the box does not offer, then 409 naming the offered tiers', async () => {
    const box = await h.box('LICENSE', { licenseTypes: { personal: { price: 9, autoApprove: true } } });
    const res = await h.platform().call('POST', '/licensing/request', {
      identity_id: box.boxId,
      use_type: 'avatar',
      platform_description: 'Avatars',
      expected_usage: 'some',
    });
    expect(res.status).toBe(409);
    expect(res.body.error.details.offeredTiers).toEqual(['personal']);
  });
});
