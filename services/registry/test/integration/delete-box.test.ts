import { licenseActivated } from '@svc/contracts/licensing';
import { startRegistryHarness, type Client, type RegistryHarness } from '../fixtures/registry-harness';

let h: RegistryHarness;
let owner: Client;
beforeAll(async () => {
  h = await startRegistryHarness();
  owner = h.platform();
});
afterAll(async () => {
  await h.stop();
});

async function newBox(): Promise<any> {
  const claim = await h.verifiedClaim(owner);
  return (await owner.call('POST', '/v1/svc/boxes', { claimId: claim.id, policy: 'LICENSE' })).body.data;
}

describe('DELETE /v1/svc/boxes/:id', () => {
  it('when the owner deletes a box, then licenses remain active (counted) and box.deleted is published', async () => {
    const box = await newBox();
    await h.publish(
      licenseActivated.create(
        {
          licenseId: 'lic_0000000000000000000001',
          boxId: box.id,
          claimId: box.claimId,
          identityName: box.identityName,
          tier: 'creator',
          status: 'active',
          licenseePlatformId: 'plat_licensee000000000000001',
          licenseePlatformName: 'Avatars Inc',
          boxOwnerPlatformId: owner.platformId,
          monthlyFeeCents: 2900,
          royaltyRate: 0.1,
          currency: 'USD',
          validFrom: '2026-11-01T00:00:00.000Z',
          expiresAt: '2027-11-01T00:00:00.000Z',
          autoRenew: true,
        },
        { occurredAt: h.clock.now(), platformId: 'plat_licensee000000000000001' },
      ),
    );
    const res = await owner.call('DELETE', `/v1/svc/boxes/${box.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id: box.id,
      deleted: true,
      deletedAt: '2026-11-22T10:00:00.000Z',
      activeLicenses: 1,
      licenseAction: 'remain_active',
    });
    const claim = await owner.call('GET', `/v1/svc/claims/${box.claimId}`);
    expect(claim.body.data.hasBox).toBe(false);
    expect(claim.body.data).not.toHaveProperty('boxId');
    const event = await h.waitForEvent('registry.box.deleted', (e) => e.data.boxId === box.id);
    expect(event.data).toMatchObject({ claimId: box.claimId, ownerPlatformId: owner.platformId });
    expect((await owner.call('DELETE', `/v1/svc/boxes/${box.id}`)).status).toBe(404);
  });

  it('when the box is deleted, then the claim can be boxed again', async () => {
    const box = await newBox();
    await owner.call('DELETE', `/v1/svc/boxes/${box.id}`);
    const again = await owner.call('POST', '/v1/svc/boxes', { claimId: box.claimId, policy: 'OPEN' });
    expect(again.status).toBe(201);
  });

  it('when another platform deletes a box, then 403 FORBIDDEN and the box stays', async () => {
    const box = await newBox();
    const res = await h.platform().call('DELETE', `/v1/svc/boxes/${box.id}`);
    expect(res.status).toBe(403);
    expect((await owner.call('GET', `/v1/svc/boxes/${box.id}`)).status).toBe(200);
  });
});
