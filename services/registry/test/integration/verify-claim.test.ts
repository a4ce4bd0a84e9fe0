import {
  claimBody,
  startRegistryHarness,
  type Client,
  type RegistryHarness,
} from '../fixtures/registry-harness';

let h: RegistryHarness;
let owner: Client;
beforeAll(async () => {
  h = await startRegistryHarness();
  owner = h.platform();
});
afterAll(async () => {
  await h.stop();
});

async function newClaimId(client: Client = owner): Promise<string> {
  return (await client.call('POST', '/v1/svc/claims', claimBody())).body.data.id;
}

describe('POST /admin/claims/:id/verify and /reject (operator)', () => {
  it('when the operator verifies a pending claim, then it is verified at the tier with verification details and an event', async () => {
    const id = await newClaimId();
    h.clock.advance(60_000);
    const res = await h.operator().call('POST', `/admin/claims/${id}/verify`, {
      tier: 'GOLD',
      method: 'passport_check',
      documents: ['passport'],
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      status: 'verified',
      verificationTier: 'GOLD',
      verifiedAt: '2026-11-22T10:01:00.000Z',
      verification: {
        method: 'passport_check',
        completedAt: '2026-11-22T10:01:00.000Z',
        documents: ['passport'],
      },
    });
    const event = await h.waitForEvent('registry.claim.verified', (e) => e.data.claimId === id);
    expect(event.data).toMatchObject({
      status: 'verified',
      verificationTier: 'GOLD',
      ownerPlatformId: owner.platformId,
    });
    expect(event.platformId).toBe(owner.platformId);
  });

  it('when the operator rejects a pending claim, then it is rejected and cannot be verified or boxed (409)', async () => {
    const id = await newClaimId();
    const rejected = await h.operator().call('POST', `/admin/claims/${id}/reject`, {
      reason: 'documents do not match',
    });
    expect(rejected.status).toBe(200);
    expect(rejected.body.data.status).toBe('rejected');
    await h.waitForEvent(
      'registry.claim.rejected',
      (e) => e.data.claimId === id && e.data.reason === 'documents do not match',
    );
    const verify = await h.operator().call('POST', `/admin/claims/${id}/verify`, { tier: 'SILVER' });
    expect(verify.status).toBe(409);
    expect(verify.body.error.code).toBe('INVALID_STATE');
    const box = await owner.call('POST', '/v1/svc/boxes', { claimId: id, policy: 'BLOCK_ALL' });
    expect(box.status).toBe(409);
    expect(box.body.error.code).toBe('INVALID_STATE');
  });

  it('when the operator rejects a verified claim, then 409 INVALID_STATE; re-verifying upgrades the tier', async () => {
    const claim = await h.verifiedClaim(owner);
    const reject = await h.operator().call('POST', `/admin/claims/${claim.id}/reject`, { reason: 'late' });
    expect(reject.status).toBe(409);
    expect(reject.body.error.code).toBe('INVALID_STATE');
    const upgrade = await h.operator().call('POST', `/admin/claims/${claim.id}/verify`, { tier: 'GOLD' });
    expect(upgrade.status).toBe(200);
    expect(upgrade.body.data.verificationTier).toBe('GOLD');
  });

  it('when the body or id is wrong, then 400 VALIDATION_ERROR or 404', async () => {
    const id = await newClaimId();
    expect((await h.operator().call('POST', `/admin/claims/${id}/verify`, { tier: 'BRONZE' })).status).toBe(
      400,
    );
    expect((await h.operator().call('POST', `/admin/claims/${id}/reject`, {})).status).toBe(400);
    expect(
      (await h.operator().call('POST', '/admin/claims/claim_nope0000000000000000/verify', { tier: 'GOLD' }))
        .status,
    ).toBe(404);
  });

  it('when a platform token reaches the operator routes, then 403 FORBIDDEN', async () => {
    const id = await newClaimId();
    const res = await owner.call('POST', `/admin/claims/${id}/verify`, { tier: 'GOLD' });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
  });
});

describe('POST /v1/svc/test-helpers/claims/:id/verify (sandbox)', () => {
  it('when a sandbox platform verifies its own claim, then it is verified (SILVER by default)', async () => {
    const id = await newClaimId();
    const res = await owner.call('POST', `/v1/svc/test-helpers/claims/${id}/verify`, {});
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ status: 'verified', verificationTier: 'SILVER' });
    expect(res.body.data.verification.method).toBe('sandbox_test_helper');
    const gold = await owner.call('POST', `/v1/svc/test-helpers/claims/${await newClaimId()}/verify`, {
      tier: 'GOLD',
    });
    expect(gold.body.data.verificationTier).toBe('GOLD');
  });

  it("when a platform uses it on another platform's claim, then 404", async () => {
    const id = await newClaimId(h.platform());
    const res = await owner.call('POST', `/v1/svc/test-helpers/claims/${id}/verify`, {});
    expect(res.status).toBe(404);
  });

  it('when the caller is a production key, then 403 FORBIDDEN', async () => {
    const live = h.platform({ environment: 'production' });
    const id = await newClaimId(live);
    const res = await live.call('POST', `/v1/svc/test-helpers/claims/${id}/verify`, {});
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
  });
});
