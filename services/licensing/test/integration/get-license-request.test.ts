import { LICENSE_CONFIG, startLicensingHarness, type LicensingHarness } from '../fixtures/licensing-harness';

let h: LicensingHarness;
beforeAll(async () => {
  h = await startLicensingHarness();
});
afterAll(async () => {
  await h.stop();
});

describe('GET /v1/svc/licenses/request/:id', () => {
  it('when pending, then the pending form', async () => {
    const box = await h.box('LICENSE', LICENSE_CONFIG);
    const client = h.platform();
    const request = await h.request(client, box);
    const res = await client.call('GET', `/v1/svc/licenses/request/${request.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id: request.id,
      status: 'pending',
      submittedAt: '2026-11-22T10:00:00.000Z',
    });
  });

  it('when approved, then the approved form with the license', async () => {
    const box = await h.box('LICENSE', LICENSE_CONFIG);
    const client = h.platform();
    const request = await h.request(client, box, { tier: 'personal' });
    const res = await client.call('GET', `/v1/svc/licenses/request/${request.id}`);
    expect(res.body.data).toEqual({
      id: request.id,
      status: 'approved',
      license: {
        id: expect.stringMatching(/^lic_/),
        tier: 'personal',
        monthlyFee: 9.99,
        validFrom: '2026-11-22T10:00:00.000Z',
        expiresAt: '2026-12-22T10:00:00.000Z',
      },
    });
  });

  it('when denied, then the denied form with reason and deniedAt', async () => {
    const box = await h.box('LICENSE', LICENSE_CONFIG);
    const client = h.platform();
    const request = await h.request(client, box);
    await box.owner.call('POST', `/v1/svc/license-requests/${request.id}/deny`, { reason: 'Not a fit' });
    const res = await client.call('GET', `/v1/svc/licenses/request/${request.id}`);
    expect(res.body.data).toEqual({
      id: request.id,
      status: 'denied',
      reason: 'Not a fit',
      deniedAt: '2026-11-22T10:00:00.000Z',
    });
  });

  it('when another platform (even the box owner) reads it, then 404', async () => {
    const box = await h.box('LICENSE', LICENSE_CONFIG);
    const request = await h.request(h.platform(), box);
    expect((await h.platform().call('GET', `/v1/svc/licenses/request/${request.id}`)).status).toBe(404);
    expect((await box.owner.call('GET', `/v1/svc/licenses/request/${request.id}`)).status).toBe(404);
    expect((await h.platform().call('GET', '/v1/svc/licenses/request/req_nope')).status).toBe(404);
  });
});
