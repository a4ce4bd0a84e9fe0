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

describe('POST /v1/svc/boxes', () => {
  it('when the owner boxes a verified claim, then 201 with the box, the initial scan, and box.created', async () => {
    const claim = await h.verifiedClaim(owner);
    const res = await owner.call('POST', '/v1/svc/boxes', {
      claimId: claim.id,
      policy: 'MONETIZE',
      policyConfig: { royaltyRate: 0.15, revenueTypes: ['subscription', 'tips'], minimumPayout: 50 },
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      id: expect.stringMatching(/^box_[0-9A-Za-z]{16,}$/),
      claimId: claim.id,
      identityName: 'Ada Lovelace',
      policy: 'MONETIZE',
      enforcement: 'MODERATE',
      status: 'active',
      createdAt: '2026-11-22T10:00:00.000Z',
      initialScan: { status: 'in_progress', estimatedCompletion: '2026-11-22T10:15:00.000Z' },
    });
    const readBack = await owner.call('GET', `/v1/svc/claims/${claim.id}`);
    expect(readBack.body.data).toMatchObject({ hasBox: true, boxId: res.body.data.id });
    const event = await h.waitForEvent('registry.box.created', (e) => e.data.boxId === res.body.data.id);
    expect(event.platformId).toBe(owner.platformId);
    expect(event.data).toMatchObject({
      claimId: claim.id,
      ownerPlatformId: owner.platformId,
      identityName: 'Ada Lovelace',
      variations: ['Countess of Lovelace', 'A. Lovelace'],
      policy: 'MONETIZE',
      enforcement: 'MODERATE',
      royaltyRate: 0.15,
      policyConfig: { royaltyRate: 0.15, revenueTypes: ['subscription', 'tips'], minimumPayout: 50 },
      referenceImageUrls: ['https://img.example.com/ada-1.jpg', 'https://img.example.com/ada-2.jpg'],
    });
  });

  it('when the claim already has a box, then 409 INVALID_STATE', async () => {
    const claim = await h.verifiedClaim(owner);
    expect((await owner.call('POST', '/v1/svc/boxes', { claimId: claim.id, policy: 'OPEN' })).status).toBe(
      201,
    );
    const second = await owner.call('POST', '/v1/svc/boxes', { claimId: claim.id, policy: 'BLOCK_ALL' });
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe('INVALID_STATE');
  });

  it('when the own claim is still pending, then 409 INVALID_STATE', async () => {
    const id = (await owner.call('POST', '/v1/svc/claims', claimBody())).body.data.id;
    const res = await owner.call('POST', '/v1/svc/boxes', { claimId: id, policy: 'BLOCK_ALL' });
    expect(res.status).toBe(409);
    expect(res.body.error.code).toBe('INVALID_STATE');
  });

  it("when the claim is another platform's (verified or not) or unknown, then 404", async () => {
    const stranger = h.platform();
    const theirs = await h.verifiedClaim(stranger);
    const theirPending = (await stranger.call('POST', '/v1/svc/claims', claimBody())).body.data.id;
    for (const claimId of [theirs.id, theirPending, 'claim_unknown000000000000000']) {
      const res = await owner.call('POST', '/v1/svc/boxes', { claimId, policy: 'BLOCK_ALL' });
      expect(res.status).toBe(404);
      expect(res.body.error.code).toBe('NOT_FOUND');
    }
  });

  it.each([
    ['an unknown policy', { policy: 'BLOCK_SOME' }, 'policy'],
    ['an unknown enforcement', { policy: 'OPEN', enforcement: 'HARSH' }, 'enforcement'],
    [
      'a royaltyRate above 1',
      { policy: 'MONETIZE', policyConfig: { royaltyRate: 1.5 } },
      'policyConfig.royaltyRate',
    ],
    [
      'a negative price',
      { policy: 'LICENSE', policyConfig: { licenseTypes: { personal: { price: -1 } } } },
      'policyConfig.licenseTypes.personal.price',
    ],
    [
      'an unknown config key',
      { policy: 'TEAM', policyConfig: { authorizedAccounts: ['a'], admins: ['b'] } },
      'policyConfig',
    ],
    ['config on BLOCK_ALL', { policy: 'BLOCK_ALL', policyConfig: { royaltyRate: 0.1 } }, 'policyConfig'],
    [
      'a non-http guidelines url',
      { policy: 'MONETIZE', policyConfig: { contentGuidelines: 'file:///etc/passwd' } },
      'policyConfig.contentGuidelines',
    ],
    [
      'an unknown allowed use',
      { policy: 'BLOCK_COMMERCIAL', policyConfig: { allowedUses: ['commercial'] } },
      'policyConfig.allowedUses.0',
    ],
  ])('when the body has %s, then 400 VALIDATION_ERROR naming the field', async (_what, body, field) => {
    const claim = await h.verifiedClaim(owner);
    const res = await owner.call('POST', '/v1/svc/boxes', { claimId: claim.id, ...body });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(res.body.error.details.fields.map((f: { field: string }) => f.field)).toContain(field);
  });

  it('when every policy gets a valid configuration, then each is accepted', async () => {
    const configs: [string, Record<string, unknown>][] = [
      [
        'LICENSE',
        {
          licenseTypes: { personal: { price: 9.99, autoApprove: true }, commercial: { price: 499 } },
          nsfw: false,
        },
      ],
      ['TEAM', { authorizedAccounts: ['creator_1'], platformWhitelist: ['studio.example'] }],
      ['BLOCK_COMMERCIAL', { allowedUses: ['personal', 'parody'] }],
      ['BLOCK_ALL', {}],
      ['OPEN', {}],
    ];
    for (const [policy, policyConfig] of configs) {
      const claim = await h.verifiedClaim(owner);
      const res = await owner.call('POST', '/v1/svc/boxes', {
        claimId: claim.id,
        policy,
        policyConfig,
        enforcement: 'STRICT',
      });
      expect(res.status).toBe(201);
      expect(res.body.data.policyConfig).toEqual(policyConfig);
    }
  });
});
