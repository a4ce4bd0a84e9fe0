import {
  LICENSE_CONFIG,
  requestBody,
  startLicensingHarness,
  type LicensingHarness,
} from '../fixtures/licensing-harness';

let h: LicensingHarness;
beforeAll(async () => {
  h = await startLicensingHarness();
});
afterAll(async () => {
  await h.stop();
});

describe('the box projection (registry.box.* consumer)', () => {
  it('when box.updated changes the prices, then new requests use them; an older update is ignored', async () => {
    const box = await h.box('LICENSE', LICENSE_CONFIG);
    await h.updateBox(
      box,
      'LICENSE',
      { licenseTypes: { creator: { price: 79, autoApprove: true } } },
      new Date('2026-11-10T00:00:00Z'),
    );
    await h.updateBox(
      box,
      'LICENSE',
      { licenseTypes: { creator: { price: 1, autoApprove: false } } },
      new Date('2026-11-05T00:00:00Z'),
    );
    const res = await h.platform().call('POST', '/v1/svc/licenses/request', requestBody(box.boxId));
    expect(res.body.data).toMatchObject({ status: 'approved', pricing: { monthlyFee: 79 } });
  });

  it('when an event is delivered twice, then it is applied once', async () => {
    const box = await h.box('LICENSE', LICENSE_CONFIG);
    const update = await h.updateBox(box, 'BLOCK_ALL', {}, new Date('2026-11-10T00:00:00Z'));
    await h.updateBox(box, 'LICENSE', LICENSE_CONFIG, new Date('2026-11-11T00:00:00Z'));
    await h.publish(update);
    expect((await h.platform().call('POST', '/v1/svc/licenses/request', requestBody(box.boxId))).status).toBe(
      201,
    );
  });

  it('when box.deleted arrives, then the box takes no new requests and a late box.updated does not revive it', async () => {
    const box = await h.box('LICENSE', LICENSE_CONFIG);
    await h.deleteBox(box);
    await h.updateBox(box, 'LICENSE', LICENSE_CONFIG, new Date('2027-01-01T00:00:00Z'));
    expect((await h.platform().call('POST', '/v1/svc/licenses/request', requestBody(box.boxId))).status).toBe(
      404,
    );
  });
});
