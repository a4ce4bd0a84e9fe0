import { LICENSE_CONFIG, startLicensingHarness, type LicensingHarness } from '../fixtures/licensing-harness';

let h: LicensingHarness;
beforeAll(async () => {
  h = await startLicensingHarness();
});
afterAll(async () => {
  await h.stop();
});

describe('GET /v1/svc/boxes/:id/license-requests', () => {
  it('when the owner lists, then its box requests newest first, filtered by status and paged', async () => {
    const box = await h.box('LICENSE', LICENSE_CONFIG);
    const a = await h.request(h.platform({ platformName: 'A' }), box, {
      message: 'please',
      estimatedUsers: 10,
    });
    h.clock.advance(1000);
    const b = await h.request(h.platform(), box, { tier: 'personal' });
    h.clock.advance(1000);
    const c = await h.request(h.platform(), box, { tier: 'commercial' });
    const all = await box.owner.call('GET', `/v1/svc/boxes/${box.boxId}/license-requests`);
    expect(all.status).toBe(200);
    expect(all.body.data.map((r: any) => r.id)).toEqual([c.id, b.id, a.id]);
    expect(all.body.meta).toEqual({ total: 3, limit: 20, offset: 0 });
    expect(all.body.data[2]).toMatchObject({
      tier: 'creator',
      status: 'pending',
      useCase: 'AI companion avatar',
      message: 'please',
      estimatedUsers: 10,
      licenseePlatformName: 'A',
      pricing: { monthlyFee: 49.99, royaltyRate: 0, currency: 'USD' },
      licenseId: null,
      reason: null,
      decidedAt: null,
    });
    const pending = await box.owner.call(
      'GET',
      `/v1/svc/boxes/${box.boxId}/license-requests?status=pending&limit=1&offset=1`,
    );
    expect(pending.body.data.map((r: any) => r.id)).toEqual([a.id]);
    expect(pending.body.meta).toEqual({ total: 2, limit: 1, offset: 1 });
  });

  it('when paging is out of range or the status unknown, then 400', async () => {
    const box = await h.box('LICENSE', LICENSE_CONFIG);
    for (const query of ['limit=0', 'limit=101', 'offset=-1', 'status=open']) {
      expect(
        (await box.owner.call('GET', `/v1/svc/boxes/${box.boxId}/license-requests?${query}`)).status,
      ).toBe(400);
    }
  });

  it('when another platform lists, then 404', async () => {
    const box = await h.box('LICENSE', LICENSE_CONFIG);
    expect((await h.platform().call('GET', `/v1/svc/boxes/${box.boxId}/license-requests`)).status).toBe(404);
  });
});

describe('POST /v1/svc/license-requests/:id/approve and /deny', () => {
  it('when the owner approves, then the license is active and the events are published; again → 409', async () => {
    const box = await h.box('LICENSE', LICENSE_CONFIG);
    const client = h.platform();
    const request = await h.request(client, box);
    h.clock.advance(60_000);
    const res = await box.owner.call('POST', `/v1/svc/license-requests/${request.id}/approve`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: request.id,
      status: 'approved',
      license: { tier: 'creator', monthlyFee: 49.99, validFrom: h.clock.now().toISOString() },
    });
    const approved = await h.waitForEvent(
      'licensing.request.approved',
      (e) => e.data.requestId === request.id,
    );
    expect(approved.data.automatic).toBe(false);
    await h.waitForEvent('licensing.license.activated', (e) => e.data.licenseId === res.body.data.license.id);
    const again = await box.owner.call('POST', `/v1/svc/license-requests/${request.id}/approve`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('INVALID_STATE');
    expect(
      (await box.owner.call('POST', `/v1/svc/license-requests/${request.id}/deny`, { reason: 'x' })).status,
    ).toBe(409);
  });

  it('when the owner denies, then denied with the reason and request.denied; approving it then → 409', async () => {
    const box = await h.box('LICENSE', LICENSE_CONFIG);
    const request = await h.request(h.platform(), box);
    const res = await box.owner.call('POST', `/v1/svc/license-requests/${request.id}/deny`, {
      reason: 'No thanks',
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'denied', reason: 'No thanks' });
    const denied = await h.waitForEvent('licensing.request.denied', (e) => e.data.requestId === request.id);
    expect(denied.data.reason).toBe('No thanks');
    expect((await box.owner.call('POST', `/v1/svc/license-requests/${request.id}/approve`)).status).toBe(409);
  });

  it('when deny has no reason, then 400 naming reason', async () => {
    const box = await h.box('LICENSE', LICENSE_CONFIG);
    const request = await h.request(h.platform(), box);
    const res = await box.owner.call('POST', `/v1/svc/license-requests/${request.id}/deny`, {});
    expect(res.status).toBe(400);
    expect(res.body.error.details.fields[0].field).toBe('reason');
  });

  it('when a non-owner (another platform, or the requester itself) reviews, then 404 and nothing changes', async () => {
    const box = await h.box('LICENSE', LICENSE_CONFIG);
    const client = h.platform();
    const request = await h.request(client, box);
    for (const who of [h.platform(), client]) {
      expect((await who.call('POST', `/v1/svc/license-requests/${request.id}/approve`)).status).toBe(404);
      expect(
        (await who.call('POST', `/v1/svc/license-requests/${request.id}/deny`, { reason: 'x' })).status,
      ).toBe(404);
    }
    expect((await client.call('GET', `/v1/svc/licenses/request/${request.id}`)).body.data.status).toBe(
      'pending',
    );
  });

  it('when the box was deleted, then a pending request can be denied but not approved', async () => {
    const box = await h.box('LICENSE', LICENSE_CONFIG);
    const first = await h.request(h.platform(), box);
    const second = await h.request(h.platform(), box);
    await h.deleteBox(box);
    expect((await box.owner.call('POST', `/v1/svc/license-requests/${first.id}/approve`)).status).toBe(409);
    expect(
      (await box.owner.call('POST', `/v1/svc/license-requests/${second.id}/deny`, { reason: 'gone' })).status,
    ).toBe(200);
  });
});

describe('POST /v1/svc/test-helpers/license-requests/:id/approve and /deny', () => {
  it('when a sandbox requester approves its own request, then approved with a license', async () => {
    const box = await h.box('LICENSE', LICENSE_CONFIG);
    const client = h.platform();
    const request = await h.request(client, box);
    const res = await client.call('POST', `/v1/svc/test-helpers/license-requests/${request.id}/approve`);
    expect(res.status).toBe(200);
    expect(res.body.data.license.tier).toBe('creator');
  });

  it('when a sandbox requester denies its own request, then denied', async () => {
    const box = await h.box('LICENSE', LICENSE_CONFIG);
    const client = h.platform();
    const request = await h.request(client, box);
    const res = await client.call('POST', `/v1/svc/test-helpers/license-requests/${request.id}/deny`, {
      reason: 'test',
    });
    expect(res.body.data).toMatchObject({ status: 'denied', reason: 'test' });
  });

  it("when used on another platform's request, then 404; with a production key, then 403", async () => {
    const box = await h.box('LICENSE', LICENSE_CONFIG);
    const request = await h.request(h.platform(), box);
    expect(
      (await h.platform().call('POST', `/v1/svc/test-helpers/license-requests/${request.id}/approve`)).status,
    ).toBe(404);
    expect(
      (await box.owner.call('POST', `/v1/svc/test-helpers/license-requests/${request.id}/approve`)).status,
    ).toBe(404);
    const live = h.platform({ environment: 'production' });
    const own = await h.request(live, box);
    const res = await live.call('POST', `/v1/svc/test-helpers/license-requests/${own.id}/approve`);
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
  });
});
