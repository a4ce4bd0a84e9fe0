import { startTestCluster, type TestCluster } from '@svc/test-kit';
import { unwrap, type SvcClient } from '@svc/sdk';
import { expectStatus, newPlatformKey, refusal, ROOT, sdkFor } from './helpers';
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
// (renewals have no second-family form). Calls go through @svc/sdk, the typed client generated
// from the OpenAPI document.
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

async function newClient(name: string): Promise<SvcClient> {
  return sdkFor(cluster.gatewayUrl, await newPlatformKey(cluster, name));
}

/** One of `client`'s licenses (detail form). */
async function licenseOf(client: SvcClient, id: string) {
  return (await unwrap(client.GET('/v1/svc/licenses/{id}', { params: { path: { id } } }))).data;
}

describe('the price list through the gateway (cluster mode)', () => {
  it('when a tier the box does not offer is requested, then 409 with the offered tiers in both families, and the terms show the list price', async () => {
    const owner = await newClient('Owner');
    const licensee = await newClient('Licensee');
    const box = await boxedIdentity(owner, 'LICENSE', PRICE_LIST);
    const terms = await termsWhen(licensee, box.claimId);
    expect(terms).toMatchObject({
      licensable: true,
      auto_approve: false,
      pricing: { monthly_license: 49, per_interaction: 0 },
    });

    const enterprise = await refusal(
      licensee.POST('/v1/svc/licenses/request', { body: requestBody(box.boxId, 'enterprise') }),
    );
    expect(enterprise.status).toBe(409);
    expect(enterprise).toMatchObject({
      code: 'INVALID_STATE',
      details: { tier: 'enterprise', offeredTiers: ['personal', 'creator', 'commercial'] },
    });
    const queue = await unwrap(
      owner.GET('/v1/svc/boxes/{id}/license-requests', { params: { path: { id: box.boxId } } }),
    );
    expect(queue.meta.total).toBe(0);

    // The second family always asks for the creator tier: a box that lists only personal refuses it.
    const personalOnly = await boxedIdentity(owner, 'LICENSE', {
      licenseTypes: { personal: { price: 9, autoApprove: true } },
    });
    const onlyTerms = await termsWhen(licensee, personalOnly.claimId);
    expect(onlyTerms).toMatchObject({ licensable: false, auto_approve: false, pricing: null });
    const second = await refusal(
      licensee.POST('/licensing/request', { body: secondFamilyRequest(personalOnly.claimId) }),
    );
    expect(second.status).toBe(409);
    expect(second.details).toMatchObject({ offeredTiers: ['personal'] });
  });

  it('when enterprise is offered, then it waits without a price and the owner prices it at approval', async () => {
    const owner = await newClient('Owner');
    const licensee = await newClient('Licensee');
    const box = await boxedIdentity(owner, 'LICENSE', {
      licenseTypes: { ...PRICE_LIST.licenseTypes, enterprise: {} },
    });
    await termsWhen(licensee, box.claimId);
    const { data: asked } = await expectStatus(
      201,
      licensee.POST('/v1/svc/licenses/request', { body: requestBody(box.boxId, 'enterprise') }),
    );
    expect(asked).toMatchObject({ status: 'pending', pricing: { monthlyFee: null } });
    const byRequest = { params: { path: { id: asked.id } } };
    const unpriced = await refusal(
      owner.POST('/v1/svc/license-requests/{id}/approve', { ...byRequest, body: {} }),
    );
    expect(unpriced.status).toBe(400);
    await expectStatus(
      200,
      owner.POST('/v1/svc/license-requests/{id}/approve', { ...byRequest, body: { monthlyFee: 2500 } }),
    );
    const { data: seen } = await unwrap(licensee.GET('/v1/svc/licenses/request/{id}', byRequest));
    expect(seen.license).toMatchObject({ tier: 'enterprise', monthlyFee: 2500 });
  });

  it('when renewing, then enterprise is refused, an upgrade waits for the owner, and a same-tier renewal takes the current list price', async () => {
    const owner = await newClient('Owner');
    const licensee = await newClient('Licensee');
    const box = await boxedIdentity(owner, 'LICENSE', PRICE_LIST);
    await termsWhen(licensee, box.claimId);
    const licenseId = await activeLicense(licensee, box.boxId, 'personal');
    const byLicense = { params: { path: { id: licenseId } } };
    const before = await licenseOf(licensee, licenseId);
    expect(before).toMatchObject({ tier: 'personal', monthlyFee: 9 });

    const enterprise = await refusal(
      licensee.POST('/v1/svc/licenses/{id}/renew', { ...byLicense, body: { term: 12, tier: 'enterprise' } }),
    );
    expect(enterprise.status).toBe(409);
    expect(enterprise.details).toMatchObject({ offeredTiers: ['personal', 'creator', 'commercial'] });
    expect(await licenseOf(licensee, licenseId)).toMatchObject({
      tier: 'personal',
      monthlyFee: 9,
      expiresAt: before.expiresAt,
    });

    const { data: upgrade } = await expectStatus(
      202,
      licensee.POST('/v1/svc/licenses/{id}/renew', { ...byLicense, body: { term: 1, tier: 'commercial' } }),
    );
    expect(upgrade).toMatchObject({
      tier: 'personal',
      monthlyFee: 9,
      pendingUpgrade: { tier: 'commercial', status: 'pending', pricing: { monthlyFee: 199 } },
    });
    const upgradeRequestId = upgrade.pendingUpgrade!.requestId;
    expect((await licenseOf(licensee, licenseId)).tier).toBe('personal');
    const queue = await unwrap(
      owner.GET('/v1/svc/boxes/{id}/license-requests', {
        params: { path: { id: box.boxId }, query: { status: 'pending' } },
      }),
    );
    expect(queue.data.map((r) => r.id)).toEqual([upgradeRequestId]);
    await expectStatus(
      200,
      owner.POST('/v1/svc/license-requests/{id}/approve', { params: { path: { id: upgradeRequestId } } }),
    );
    expect(await licenseOf(licensee, licenseId)).toMatchObject({ tier: 'commercial', monthlyFee: 199 });

    // The owner raises the prices; licensing learns it from registry's event (seen in the terms).
    await expectStatus(
      200,
      owner.PATCH('/v1/svc/boxes/{id}', {
        params: { path: { id: box.boxId } },
        body: {
          policyConfig: {
            licenseTypes: {
              personal: { price: 9, autoApprove: true },
              creator: { price: 59, autoApprove: false },
              commercial: { price: 249, autoApprove: false },
            },
          },
        },
      }),
    );
    await termsWhen(licensee, box.claimId, (t) => t.pricing?.monthly_license === 59);
    const { data: renewed } = await expectStatus(
      200,
      licensee.POST('/v1/svc/licenses/{id}/renew', { ...byLicense, body: { term: 1 } }),
    );
    expect(renewed).toMatchObject({ tier: 'commercial', monthlyFee: 249, status: 'active' });
    expect((await licenseOf(licensee, licenseId)).monthlyFee).toBe(249);
  });

  it('when the owner switched the box to BLOCK_ALL, then renewing is 409 and the license runs to its expiry', async () => {
    const owner = await newClient('Owner');
    const licensee = await newClient('Licensee');
    const box = await boxedIdentity(owner, 'LICENSE', PRICE_LIST);
    await termsWhen(licensee, box.claimId);
    const licenseId = await activeLicense(licensee, box.boxId, 'personal');
    const before = await licenseOf(licensee, licenseId);
    await expectStatus(
      200,
      owner.PATCH('/v1/svc/boxes/{id}', {
        params: { path: { id: box.boxId } },
        body: { policy: 'BLOCK_ALL', policyConfig: {} },
      }),
    );
    await termsWhen(licensee, box.claimId, (t) => !t.licensable);
    const renew = await refusal(
      licensee.POST('/v1/svc/licenses/{id}/renew', {
        params: { path: { id: licenseId } },
        body: { term: 12 },
      }),
    );
    expect([renew.status, renew.code]).toEqual([409, 'INVALID_STATE']);
    expect(await licenseOf(licensee, licenseId)).toMatchObject({
      status: 'active',
      expiresAt: before.expiresAt,
    });
  });

  it('when a platform asks again for a tier it holds, then 409 with the active license id, in both families', async () => {
    const owner = await newClient('Owner');
    const licensee = await newClient('Licensee');
    const box = await boxedIdentity(owner, 'LICENSE', {
      licenseTypes: { personal: { price: 9, autoApprove: true }, creator: { price: 49, autoApprove: true } },
    });
    await termsWhen(licensee, box.claimId);
    const licenseId = await activeLicense(licensee, box.boxId, 'personal');
    const again = await refusal(
      licensee.POST('/v1/svc/licenses/request', { body: requestBody(box.boxId, 'personal') }),
    );
    expect(again.status).toBe(409);
    expect(again.details).toMatchObject({ licenseId });

    const first = await expectStatus(
      201,
      licensee.POST('/licensing/request', { body: secondFamilyRequest(box.claimId) }),
    );
    expect(first).toMatchObject({ status: 'approved' });
    const creator = await unwrap(
      licensee.GET('/licensing/request/{id}', { params: { path: { id: first.request_id } } }),
    );
    const second = await refusal(
      licensee.POST('/licensing/request', { body: secondFamilyRequest(box.claimId) }),
    );
    expect(second.status).toBe(409);
    expect(second.details).toMatchObject({ licenseId: creator.license_id });
    const active = await unwrap(
      licensee.GET('/v1/svc/licenses', { params: { query: { boxId: box.boxId, status: 'active' } } }),
    );
    expect(active.meta.total).toBe(2);
  });

  it('when the owner requests a license on its own box, then 409 in both families', async () => {
    const owner = await newClient('Owner');
    const box = await boxedIdentity(owner, 'LICENSE', {
      licenseTypes: { personal: { price: 9, autoApprove: true }, creator: { price: 49, autoApprove: true } },
    });
    await termsWhen(owner, box.claimId);
    const first = await refusal(
      owner.POST('/v1/svc/licenses/request', { body: requestBody(box.boxId, 'personal') }),
    );
    expect([first.status, first.code]).toEqual([409, 'INVALID_STATE']);
    const second = await refusal(
      owner.POST('/licensing/request', { body: secondFamilyRequest(box.claimId) }),
    );
    expect(second.status).toBe(409);
    expect((await unwrap(owner.GET('/v1/svc/licenses'))).meta.total).toBe(0);
  });

  it('when a TEAM box is asked for a license, then 409 in both families and its terms say it cannot be licensed', async () => {
    const owner = await newClient('Owner');
    const licensee = await newClient('Licensee');
    const box = await boxedIdentity(owner, 'TEAM', { authorizedAccounts: ['creator-1'] });
    const terms = await termsWhen(licensee, box.claimId);
    expect(terms).toMatchObject({ licensable: false, auto_approve: false, pricing: null });
    const first = await refusal(
      licensee.POST('/v1/svc/licenses/request', { body: requestBody(box.boxId, 'personal') }),
    );
    expect(first).toMatchObject({ status: 409, code: 'INVALID_STATE', details: { offeredTiers: [] } });
    expect(first.message).toMatch(/TEAM/);
    const second = await refusal(
      licensee.POST('/licensing/request', { body: secondFamilyRequest(box.boxId) }),
    );
    expect(second.status).toBe(409);
    expect((await unwrap(licensee.GET('/v1/svc/licenses'))).meta.total).toBe(0);
  });
});
