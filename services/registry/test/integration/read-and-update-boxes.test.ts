import { startRegistryHarness, type Client, type RegistryHarness } from '../fixtures/registry-harness';

let h: RegistryHarness;
let owner: Client;
let other: Client;
let monetize: any;
let license: any;
let othersBox: any;

beforeAll(async () => {
  h = await startRegistryHarness();
  owner = h.platform();
  other = h.platform();
  const c1 = await h.verifiedClaim(owner, { name: 'First Person' });
  monetize = (
    await owner.call('POST', '/v1/svc/boxes', {
      claimId: c1.id,
      policy: 'MONETIZE',
      policyConfig: { royaltyRate: 0.2 },
    })
  ).body.data;
  h.clock.advance(1000);
  const c2 = await h.verifiedClaim(owner, { name: 'Second Person' });
  license = (
    await owner.call('POST', '/v1/svc/boxes', { claimId: c2.id, policy: 'LICENSE', enforcement: 'RELAXED' })
  ).body.data;
  h.clock.advance(1000);
  const c3 = await h.verifiedClaim(other, { name: 'Third Person' });
  othersBox = (await other.call('POST', '/v1/svc/boxes', { claimId: c3.id, policy: 'BLOCK_ALL' })).body.data;
});
afterAll(async () => {
  await h.stop();
});

describe('GET /v1/svc/boxes', () => {
  it('when a platform lists, then boxes come newest first in list form with royaltyRate and stats', async () => {
    const res = await owner.call('GET', '/v1/svc/boxes');
    expect(res.status).toBe(200);
    expect(res.body.meta).toEqual({ total: 3, limit: 20, offset: 0 });
    expect(res.body.data.map((b: { id: string }) => b.id)).toEqual([othersBox.id, license.id, monetize.id]);
    expect(res.body.data[2]).toEqual({
      id: monetize.id,
      claimId: monetize.claimId,
      identityName: 'First Person',
      policy: 'MONETIZE',
      enforcement: 'MODERATE',
      royaltyRate: 0.2,
      status: 'active',
      createdAt: '2026-11-22T10:00:00.000Z',
      stats: { totalViolations: 0, activeGracePeriods: 0, licensedPlatforms: 0, monthlyRevenue: 0 },
    });
    expect(res.body.data[1].royaltyRate).toBe(0);
  });

  it('when filtered by policy or claimId and paged, then only matches are counted', async () => {
    const byPolicy = await owner.call('GET', '/v1/svc/boxes?policy=LICENSE');
    expect(byPolicy.body.data.map((b: { id: string }) => b.id)).toEqual([license.id]);
    expect(byPolicy.body.meta.total).toBe(1);
    const byClaim = await other.call('GET', `/v1/svc/boxes?claimId=${monetize.claimId}`);
    expect(byClaim.body.data.map((b: { id: string }) => b.id)).toEqual([monetize.id]);
    const paged = await owner.call('GET', '/v1/svc/boxes?limit=2&offset=2');
    expect(paged.body).toMatchObject({
      meta: { total: 3, limit: 2, offset: 2 },
      data: [{ id: monetize.id }],
    });
    for (const query of ['limit=0', 'limit=101', 'offset=-5', 'policy=NOPE']) {
      const bad = await owner.call('GET', `/v1/svc/boxes?${query}`);
      expect(bad.status).toBe(400);
      expect(bad.body.error.code).toBe('VALIDATION_ERROR');
    }
  });
});

describe('GET /v1/svc/boxes/:id', () => {
  it('when read, then the detail form has policyConfig, updatedAt and the detail stats', async () => {
    const res = await other.call('GET', `/v1/svc/boxes/${monetize.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({
      id: monetize.id,
      claimId: monetize.claimId,
      identityName: 'First Person',
      policy: 'MONETIZE',
      enforcement: 'MODERATE',
      policyConfig: { royaltyRate: 0.2 },
      status: 'active',
      createdAt: '2026-11-22T10:00:00.000Z',
      updatedAt: '2026-11-22T10:00:00.000Z',
      stats: {
        totalViolations: 0,
        resolvedViolations: 0,
        activeGracePeriods: 0,
        licensedPlatforms: 0,
        totalLicenses: 0,
        monthlyRevenue: 0,
        lifetimeRevenue: 0,
      },
    });
    expect((await owner.call('GET', '/v1/svc/boxes/box_unknown0000000000000000')).status).toBe(404);
  });
});

describe('PATCH /v1/svc/boxes/:id', () => {
  it('when the owner changes enforcement and config, then the detail is returned and box.updated published', async () => {
    h.clock.advance(60_000);
    const res = await owner.call('PATCH', `/v1/svc/boxes/${license.id}`, {
      enforcement: 'STRICT',
      policyConfig: { licenseTypes: { creator: { price: 29, autoApprove: false } } },
    });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: license.id,
      policy: 'LICENSE',
      enforcement: 'STRICT',
      policyConfig: { licenseTypes: { creator: { price: 29, autoApprove: false } } },
      updatedAt: '2026-11-22T10:01:02.000Z',
    });
    const event = await h.waitForEvent('registry.box.updated', (e) => e.data.boxId === license.id);
    expect(event.data.enforcement).toBe('STRICT');
  });

  it('when the policy changes, then the configuration is checked against the new policy', async () => {
    const stale = await owner.call('PATCH', `/v1/svc/boxes/${monetize.id}`, { policy: 'BLOCK_ALL' });
    expect(stale.status).toBe(400);
    expect(stale.body.error.code).toBe('VALIDATION_ERROR');
    const mismatch = await owner.call('PATCH', `/v1/svc/boxes/${monetize.id}`, {
      policy: 'TEAM',
      policyConfig: { royaltyRate: 0.1 },
    });
    expect(mismatch.status).toBe(400);
    const ok = await owner.call('PATCH', `/v1/svc/boxes/${monetize.id}`, {
      policy: 'BLOCK_ALL',
      policyConfig: {},
    });
    expect(ok.status).toBe(200);
    expect(ok.body.data).toMatchObject({ policy: 'BLOCK_ALL', policyConfig: {} });
    expect((await owner.call('PATCH', `/v1/svc/boxes/${monetize.id}`, {})).status).toBe(400);
  });

  it('when another platform patches a box, then 403 FORBIDDEN and nothing changes', async () => {
    const res = await other.call('PATCH', `/v1/svc/boxes/${license.id}`, { enforcement: 'RELAXED' });
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
    expect((await owner.call('GET', `/v1/svc/boxes/${license.id}`)).body.data.enforcement).toBe('STRICT');
  });
});
