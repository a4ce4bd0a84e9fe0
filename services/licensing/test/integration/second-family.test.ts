import { LICENSE_CONFIG, startLicensingHarness, type LicensingHarness } from '../fixtures/licensing-harness';

let h: LicensingHarness;
beforeAll(async () => {
  h = await startLicensingHarness();
});
afterAll(async () => {
  await h.stop();
});

describe('GET /licensing/terms/:identity_id', () => {
  it('when asked by box id or claim id, then the snake_case terms of the box', async () => {
    const box = await h.box('LICENSE', LICENSE_CONFIG);
    const expected = {
      auto_approve: false,
      pricing: { per_interaction: 0, monthly_license: 49.99 },
      licensable: true,
      allowed_uses: ['avatar', 'voice', 'video'],
      blocked_uses: ['nsfw'],
      content_guidelines: 'https://ada.example.com/guidelines',
    };
    for (const id of [box.boxId, box.claimId]) {
      const res = await h.platform().call('GET', `/licensing/terms/${id}`);
      expect(res.status).toBe(200);
      expect(res.body).toEqual(expected);
    }
  });

  it('when the identity is unknown or its box deleted, then 404', async () => {
    expect((await h.platform().call('GET', '/licensing/terms/claim_unknown')).status).toBe(404);
    const box = await h.box('OPEN');
    await h.deleteBox(box);
    expect((await h.platform().call('GET', `/licensing/terms/${box.claimId}`)).status).toBe(404);
  });
});

describe('POST /licensing/request and GET /licensing/request/:id', () => {
  it('when requested by claim id, then a creator-tier request; after approval the license id shows', async () => {
    const box = await h.box('LICENSE', LICENSE_CONFIG);
    const client = h.platform();
    const res = await client.call('POST', '/licensing/request', {
      identity_id: box.claimId,
      use_type: 'voice',
      platform_description: 'Voice companions',
      expected_usage: '1000 users a month',
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ request_id: expect.stringMatching(/^req_/), status: 'pending' });
    const owners = await box.owner.call('GET', `/v1/svc/boxes/${box.boxId}/license-requests`);
    expect(owners.body.data[0]).toMatchObject({
      tier: 'creator',
      useCase: 'voice: Voice companions',
      message: 'Expected usage: 1000 users a month',
    });
    await box.owner.call('POST', `/v1/svc/license-requests/${res.body.request_id}/approve`);
    const read = await client.call('GET', `/licensing/request/${res.body.request_id}`);
    expect(read.body).toEqual({
      request_id: res.body.request_id,
      status: 'approved',
      license_id: expect.stringMatching(/^lic_/),
    });
  });

  it('when denied, then the reason shows', async () => {
    const box = await h.box('LICENSE', LICENSE_CONFIG);
    const client = h.platform();
    const res = await client.call('POST', '/licensing/request', {
      identity_id: box.boxId,
      use_type: 'avatar',
      platform_description: 'x',
      expected_usage: 'y',
    });
    await box.owner.call('POST', `/v1/svc/license-requests/${res.body.request_id}/deny`, { reason: 'No' });
    expect((await client.call('GET', `/licensing/request/${res.body.request_id}`)).body).toEqual({
      request_id: res.body.request_id,
      status: 'denied',
      reason: 'No',
    });
  });

  it('when the body is invalid, then 400 naming the field; another platform reading is 404', async () => {
    const box = await h.box('LICENSE', LICENSE_CONFIG);
    const client = h.platform();
    const bad = await client.call('POST', '/licensing/request', {
      identity_id: box.boxId,
      use_type: 'hologram',
      platform_description: 'x',
      expected_usage: 'y',
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.fields[0].field).toBe('use_type');
    const ok = await client.call('POST', '/licensing/request', {
      identity_id: box.boxId,
      use_type: 'video',
      platform_description: 'x',
      expected_usage: 'y',
    });
    expect((await h.platform().call('GET', `/licensing/request/${ok.body.request_id}`)).status).toBe(404);
  });
});
