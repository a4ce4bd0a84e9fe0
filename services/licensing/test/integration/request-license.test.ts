import { snapshotPath } from '@svc/contracts/common';
import { INTERNAL_LICENSE_PATH, licenseSnapshotSchema } from '@svc/contracts/licensing';
import { serviceClaims } from '@svc/service-kit';
import { internalClient } from '@svc/test-kit';
import {
  JWT_SECRET,
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

describe('POST /v1/svc/licenses/request', () => {
  it('when the tier waits for review, then 201 pending with the box price and request.created only', async () => {
    const box = await h.box('LICENSE', LICENSE_CONFIG);
    const client = h.platform({ platformName: 'Avatars Inc' });
    const res = await client.call(
      'POST',
      '/v1/svc/licenses/request',
      requestBody(box.boxId, { estimatedUsers: 500, message: 'hi' }),
    );
    expect(res.status).toBe(201);
    expect(res.body.data).toEqual({
      id: expect.stringMatching(/^req_[0-9A-Za-z]{16,}$/),
      boxId: box.boxId,
      status: 'pending',
      tier: 'creator',
      submittedAt: '2026-11-22T10:00:00.000Z',
      estimatedReviewTime: '48-72 hours',
      pricing: { monthlyFee: 49.99, royaltyRate: 0, currency: 'USD' },
    });
    const created = await h.waitForEvent(
      'licensing.request.created',
      (e) => e.data.requestId === res.body.data.id,
    );
    expect(created.platformId).toBe(client.platformId);
    expect(created.data).toMatchObject({
      boxId: box.boxId,
      boxOwnerPlatformId: box.owner.platformId,
      tier: 'creator',
    });
    expect(
      h.delivered.some(
        (e) => e.type === 'licensing.request.approved' && e.data.requestId === res.body.data.id,
      ),
    ).toBe(false);
  });

  it('when the tier is autoApprove, then approved at once: an active license and request.approved + license.activated', async () => {
    const box = await h.box('LICENSE', LICENSE_CONFIG);
    const client = h.platform({ platformName: 'Avatars Inc' });
    const res = await client.call(
      'POST',
      '/v1/svc/licenses/request',
      requestBody(box.boxId, { tier: 'personal' }),
    );
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ status: 'approved', pricing: { monthlyFee: 9.99 } });
    const approved = await h.waitForEvent(
      'licensing.request.approved',
      (e) => e.data.requestId === res.body.data.id,
    );
    expect(approved.data.automatic).toBe(true);
    const activated = await h.waitForEvent(
      'licensing.license.activated',
      (e) => e.data.licenseId === approved.data.licenseId,
    );
    expect(activated.data).toMatchObject({
      status: 'active',
      monthlyFeeCents: '999',
      licenseePlatformName: 'Avatars Inc',
      validFrom: '2026-11-22T10:00:00.000Z',
      expiresAt: '2026-12-22T10:00:00.000Z',
      autoRenew: true,
    });
    const list = await client.call('GET', '/v1/svc/licenses');
    expect(list.body.data.map((l: any) => l.status)).toEqual(['active']);
  });

  it('when the platform has no name, then the licensee name in events is its id; a term and autoRenew are honoured', async () => {
    const box = await h.box('OPEN');
    const client = h.platform();
    const res = await client.call(
      'POST',
      '/v1/svc/licenses/request',
      requestBody(box.boxId, { term: 12, autoRenew: false }),
    );
    expect(res.body.data.status).toBe('approved');
    const activated = await h.waitForEvent(
      'licensing.license.activated',
      (e) => e.data.licenseePlatformId === client.platformId,
    );
    expect(activated.data).toMatchObject({
      licenseePlatformName: client.platformId,
      expiresAt: '2027-11-22T10:00:00.000Z',
      autoRenew: false,
    });
  });

  it('when the list price is past 2^53 cents, then the event and the read-through answer carry its exact cents', async () => {
    // 123456789012345.67 a month is 12345678901234567 cents: odd, so no double holds it (ADR 0039).
    const box = await h.box('LICENSE', {
      licenseTypes: { personal: { price: 123456789012345.67, autoApprove: true } },
    });
    const client = h.platform();
    const res = await client.call(
      'POST',
      '/v1/svc/licenses/request',
      requestBody(box.boxId, { tier: 'personal' }),
    );
    expect(res.body.data.status).toBe('approved');
    const activated = await h.waitForEvent(
      'licensing.license.activated',
      (e) => e.data.licenseePlatformId === client.platformId,
    );
    expect(activated.data.monthlyFeeCents).toBe('12345678901234567');
    const service = internalClient(h.running.url, JWT_SECRET, serviceClaims('billing', 'sandbox'));
    const reply = await service.call(
      'GET',
      snapshotPath(INTERNAL_LICENSE_PATH, String(activated.data.licenseId)),
    );
    expect(licenseSnapshotSchema.parse(reply.body).data.entity.monthlyFeeCents).toBe('12345678901234567');
  });

  it('when the box is MONETIZE, then the royalty rate comes from it and there is no fee', async () => {
    const box = await h.box('MONETIZE', { royaltyRate: 0.15 });
    const res = await h.platform().call('POST', '/v1/svc/licenses/request', requestBody(box.boxId));
    expect(res.body.data.pricing).toEqual({ monthlyFee: 0, royaltyRate: 0.15, currency: 'USD' });
  });

  it('when the box is BLOCK_ALL, then 409 INVALID_STATE: not licensable', async () => {
    const box = await h.box('BLOCK_ALL');
    const res = await h.platform().call('POST', '/v1/svc/licenses/request', requestBody(box.boxId));
    expect(res.status).toBe(409);
    expect(res.body.error).toMatchObject({
      code: 'INVALID_STATE',
      message: 'this identity is not licensable',
    });
  });

  it('when the box is unknown or deleted, then 404', async () => {
    expect(
      (await h.platform().call('POST', '/v1/svc/licenses/request', requestBody('box_unknown000000000000')))
        .status,
    ).toBe(404);
    const box = await h.box('LICENSE', LICENSE_CONFIG);
    await h.deleteBox(box);
    expect((await h.platform().call('POST', '/v1/svc/licenses/request', requestBody(box.boxId))).status).toBe(
      404,
    );
  });

  it.each([
    ['boxId', { boxId: undefined }],
    ['tier', { tier: 'gold' }],
    ['useCase', { useCase: undefined }],
    ['useCase', { useCase: '   ' }],
    ['estimatedUsers', { estimatedUsers: -1 }],
    ['estimatedUsers', { estimatedUsers: 1.5 }],
    ['acceptGuidelines', { acceptGuidelines: false }],
    ['acceptGuidelines', { acceptGuidelines: undefined }],
    ['acceptGuidelines', { acceptGuidelines: 'true' }],
    ['message', { message: 42 }],
    ['term', { term: 0 }],
    ['term', { term: 37 }],
  ])('when %s is invalid (%j), then 400 VALIDATION_ERROR naming it', async (field, overrides) => {
    const res = await h.platform().call('POST', '/v1/svc/licenses/request', requestBody('box_x', overrides));
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.fields.map((f: any) => f.field)).toContain(field);
  });

  it('when there is no token, then 401', async () => {
    expect((await h.raw('POST', '/v1/svc/licenses/request')).status).toBe(401);
  });
});
