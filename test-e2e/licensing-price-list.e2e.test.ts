import { startTestCluster, type TestCluster } from '@svc/test-kit';
import { call, newPlatformKey, ROOT } from './helpers';
import {
  activeLicense,
  boxedIdentity,
  requestBody,
  secondFamilyRequest,
  termsWhen,
} from './licensing-fixtures';

// Issue #15 through the gateway in cluster mode (registry, licensing and billing, which owns the
// usage a licence's detail shows, as processes on PostgreSQL and RabbitMQ): the owner's price
// list is the only source of a price, in both path families where the operation exists
// (renewals have no second-family form).
let cluster: TestCluster;

beforeAll(async () => {
  cluster = await startTestCluster({
    rootDir: ROOT,
    services: ['registry', 'licensing', 'billing'],
    output: 'silent',
  });
}, 60_000);

afterAll(async () => {
  await cluster?.teardown();
});

const PRICE_LIST = {
  licenseTypes: {
    personal: { price: 9, autoApprove: true },
    creator: { price: 49, autoApprove: false },
    commercial: { price: 199, autoApprove: false },
  },
};

describe('the price list through the gateway (cluster mode)', () => {
  it('when a tier the box does not offer is requested, then 409 with the offered tiers in both families, and the terms show the list price', async () => {
    const gw = cluster.gatewayUrl;
    const owner = await newPlatformKey(cluster, 'Owner');
    const licensee = await newPlatformKey(cluster, 'Licensee');
    const box = await boxedIdentity(gw, owner, 'LICENSE', PRICE_LIST);
    const terms = await termsWhen(gw, licensee, box.claimId);
    expect(terms.body).toMatchObject({
      licensable: true,
      auto_approve: false,
      pricing: { monthly_license: 49, per_interaction: 0 },
    });

    const enterprise = await call(gw, licensee, 'POST', '/v1/svc/licenses/request', {
      ...requestBody(box.boxId, 'enterprise'),
    });
    expect(enterprise.status).toBe(409);
    expect(enterprise.body.error).toMatchObject({
      code: 'INVALID_STATE',
      details: { tier: 'enterprise', offeredTiers: ['personal', 'creator', 'commercial'] },
    });
    expect(
      (await call(gw, owner, 'GET', `/v1/svc/boxes/${box.boxId}/license-requests`)).body.meta.total,
    ).toBe(0);

    // The second family always asks for the creator tier: a box that lists only personal refuses it.
    const personalOnly = await boxedIdentity(gw, owner, 'LICENSE', {
      licenseTypes: { personal: { price: 9, autoApprove: true } },
    });
    const onlyTerms = await termsWhen(gw, licensee, personalOnly.claimId);
    expect(onlyTerms.body).toMatchObject({ licensable: false, auto_approve: false, pricing: null });
    const second = await call(
      gw,
      licensee,
      'POST',
      '/licensing/request',
      secondFamilyRequest(personalOnly.claimId),
    );
    expect(second.status).toBe(409);
    expect(second.body.error.details.offeredTiers).toEqual(['personal']);
  });

  it('when enterprise is offered, then it waits without a price and the owner prices it at approval', async () => {
    const gw = cluster.gatewayUrl;
    const owner = await newPlatformKey(cluster, 'Owner');
    const licensee = await newPlatformKey(cluster, 'Licensee');
    const box = await boxedIdentity(gw, owner, 'LICENSE', {
      licenseTypes: { ...PRICE_LIST.licenseTypes, enterprise: {} },
    });
    await termsWhen(gw, licensee, box.claimId);
    const asked = await call(
      gw,
      licensee,
      'POST',
      '/v1/svc/licenses/request',
      requestBody(box.boxId, 'enterprise'),
    );
    expect(asked.status).toBe(201);
    expect(asked.body.data).toMatchObject({ status: 'pending', pricing: { monthlyFee: null } });
    const id = asked.body.data.id as string;
    expect((await call(gw, owner, 'POST', `/v1/svc/license-requests/${id}/approve`, {})).status).toBe(400);
    const approved = await call(gw, owner, 'POST', `/v1/svc/license-requests/${id}/approve`, {
      monthlyFee: 2500,
    });
    expect(approved.status).toBe(200);
    const seen = await call(gw, licensee, 'GET', `/v1/svc/licenses/request/${id}`);
    expect(seen.body.data.license).toMatchObject({ tier: 'enterprise', monthlyFee: 2500 });
  });

  it('when renewing, then enterprise is refused, an upgrade waits for the owner, and a same-tier renewal takes the current list price', async () => {
    const gw = cluster.gatewayUrl;
    const owner = await newPlatformKey(cluster, 'Owner');
    const licensee = await newPlatformKey(cluster, 'Licensee');
    const box = await boxedIdentity(gw, owner, 'LICENSE', PRICE_LIST);
    await termsWhen(gw, licensee, box.claimId);
    const licenseId = await activeLicense(gw, licensee, box.boxId, 'personal');
    const before = (await call(gw, licensee, 'GET', `/v1/svc/licenses/${licenseId}`)).body.data;
    expect(before).toMatchObject({ tier: 'personal', monthlyFee: 9 });

    const enterprise = await call(gw, licensee, 'POST', `/v1/svc/licenses/${licenseId}/renew`, {
      term: 12,
      tier: 'enterprise',
    });
    expect(enterprise.status).toBe(409);
    expect(enterprise.body.error.details.offeredTiers).toEqual(['personal', 'creator', 'commercial']);
    expect((await call(gw, licensee, 'GET', `/v1/svc/licenses/${licenseId}`)).body.data).toMatchObject({
      tier: 'personal',
      monthlyFee: 9,
      expiresAt: before.expiresAt,
    });

    const upgrade = await call(gw, licensee, 'POST', `/v1/svc/licenses/${licenseId}/renew`, {
      term: 1,
      tier: 'commercial',
    });
    expect(upgrade.status).toBe(202);
    expect(upgrade.body.data).toMatchObject({
      tier: 'personal',
      monthlyFee: 9,
      pendingUpgrade: { tier: 'commercial', status: 'pending', pricing: { monthlyFee: 199 } },
    });
    expect((await call(gw, licensee, 'GET', `/v1/svc/licenses/${licenseId}`)).body.data.tier).toBe(
      'personal',
    );
    const queue = await call(gw, owner, 'GET', `/v1/svc/boxes/${box.boxId}/license-requests?status=pending`);
    expect(queue.body.data.map((r: { id: string }) => r.id)).toEqual([
      upgrade.body.data.pendingUpgrade.requestId,
    ]);
    const approved = await call(
      gw,
      owner,
      'POST',
      `/v1/svc/license-requests/${upgrade.body.data.pendingUpgrade.requestId}/approve`,
    );
    expect(approved.status).toBe(200);
    expect((await call(gw, licensee, 'GET', `/v1/svc/licenses/${licenseId}`)).body.data).toMatchObject({
      tier: 'commercial',
      monthlyFee: 199,
    });

    // The owner raises the prices; licensing learns it from registry's event (seen in the terms).
    const raised = await call(gw, owner, 'PATCH', `/v1/svc/boxes/${box.boxId}`, {
      policyConfig: {
        licenseTypes: {
          personal: { price: 9, autoApprove: true },
          creator: { price: 59, autoApprove: false },
          commercial: { price: 249, autoApprove: false },
        },
      },
    });
    expect(raised.status).toBe(200);
    await termsWhen(gw, licensee, box.claimId, (t) => t.body.pricing?.monthly_license === 59);
    const renewed = await call(gw, licensee, 'POST', `/v1/svc/licenses/${licenseId}/renew`, { term: 1 });
    expect(renewed.status).toBe(200);
    expect(renewed.body.data).toMatchObject({ tier: 'commercial', monthlyFee: 249, status: 'active' });
    expect((await call(gw, licensee, 'GET', `/v1/svc/licenses/${licenseId}`)).body.data.monthlyFee).toBe(249);
  });

  it('when the owner switched the box to BLOCK_ALL, then renewing is 409 and the license runs to its expiry', async () => {
    const gw = cluster.gatewayUrl;
    const owner = await newPlatformKey(cluster, 'Owner');
    const licensee = await newPlatformKey(cluster, 'Licensee');
    const box = await boxedIdentity(gw, owner, 'LICENSE', PRICE_LIST);
    await termsWhen(gw, licensee, box.claimId);
    const licenseId = await activeLicense(gw, licensee, box.boxId, 'personal');
    const before = (await call(gw, licensee, 'GET', `/v1/svc/licenses/${licenseId}`)).body.data;
    expect(
      (
        await call(gw, owner, 'PATCH', `/v1/svc/boxes/${box.boxId}`, {
          policy: 'BLOCK_ALL',
          policyConfig: {},
        })
      ).status,
    ).toBe(200);
    await termsWhen(gw, licensee, box.claimId, (t) => t.body.licensable === false);
    const renew = await call(gw, licensee, 'POST', `/v1/svc/licenses/${licenseId}/renew`, { term: 12 });
    expect(renew.status).toBe(409);
    expect(renew.body.error.code).toBe('INVALID_STATE');
    expect((await call(gw, licensee, 'GET', `/v1/svc/licenses/${licenseId}`)).body.data).toMatchObject({
      status: 'active',
      expiresAt: before.expiresAt,
    });
  });

  it('when a platform asks again for a tier it holds, then 409 with the active license id, in both families', async () => {
    const gw = cluster.gatewayUrl;
    const owner = await newPlatformKey(cluster, 'Owner');
    const licensee = await newPlatformKey(cluster, 'Licensee');
    const box = await boxedIdentity(gw, owner, 'LICENSE', {
      licenseTypes: { personal: { price: 9, autoApprove: true }, creator: { price: 49, autoApprove: true } },
    });
    await termsWhen(gw, licensee, box.claimId);
    const licenseId = await activeLicense(gw, licensee, box.boxId, 'personal');
    const again = await call(
      gw,
      licensee,
      'POST',
      '/v1/svc/licenses/request',
      requestBody(box.boxId, 'personal'),
    );
    expect(again.status).toBe(409);
    expect(again.body.error.details).toMatchObject({ licenseId });

    const first = await call(gw, licensee, 'POST', '/licensing/request', secondFamilyRequest(box.claimId));
    expect(first.status).toBe(201);
    expect(first.body).toMatchObject({ status: 'approved' });
    const creatorId = (await call(gw, licensee, 'GET', `/licensing/request/${first.body.request_id}`)).body
      .license_id as string;
    const second = await call(gw, licensee, 'POST', '/licensing/request', secondFamilyRequest(box.claimId));
    expect(second.status).toBe(409);
    expect(second.body.error.details).toMatchObject({ licenseId: creatorId });
    const active = await call(gw, licensee, 'GET', `/v1/svc/licenses?boxId=${box.boxId}&status=active`);
    expect(active.body.meta.total).toBe(2);
  });

  it('when the owner requests a license on its own box, then 409 in both families', async () => {
    const gw = cluster.gatewayUrl;
    const owner = await newPlatformKey(cluster, 'Owner');
    const box = await boxedIdentity(gw, owner, 'LICENSE', {
      licenseTypes: { personal: { price: 9, autoApprove: true }, creator: { price: 49, autoApprove: true } },
    });
    await termsWhen(gw, owner, box.claimId);
    const first = await call(
      gw,
      owner,
      'POST',
      '/v1/svc/licenses/request',
      requestBody(box.boxId, 'personal'),
    );
    expect(first.status).toBe(409);
    expect(first.body.error.code).toBe('INVALID_STATE');
    const second = await call(gw, owner, 'POST', '/licensing/request', secondFamilyRequest(box.claimId));
    expect(second.status).toBe(409);
    expect((await call(gw, owner, 'GET', '/v1/svc/licenses')).body.meta.total).toBe(0);
  });

  it('when a TEAM box is asked for a license, then 409 in both families and its terms say it cannot be licensed', async () => {
    const gw = cluster.gatewayUrl;
    const owner = await newPlatformKey(cluster, 'Owner');
    const licensee = await newPlatformKey(cluster, 'Licensee');
    const box = await boxedIdentity(gw, owner, 'TEAM', { authorizedAccounts: ['creator-1'] });
    const terms = await termsWhen(gw, licensee, box.claimId);
    expect(terms.body).toMatchObject({ licensable: false, auto_approve: false, pricing: null });
    const first = await call(
      gw,
      licensee,
      'POST',
      '/v1/svc/licenses/request',
      requestBody(box.boxId, 'personal'),
    );
    expect(first.status).toBe(409);
    expect(first.body.error).toMatchObject({ code: 'INVALID_STATE', details: { offeredTiers: [] } });
    expect(first.body.error.message).toMatch(/TEAM/);
    const second = await call(gw, licensee, 'POST', '/licensing/request', secondFamilyRequest(box.boxId));
    expect(second.status).toBe(409);
    expect((await call(gw, licensee, 'GET', '/v1/svc/licenses')).body.meta.total).toBe(0);
  });
});
