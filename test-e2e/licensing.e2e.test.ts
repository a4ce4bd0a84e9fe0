import { startTestCluster, waitFor, type TestCluster } from '@svc/test-kit';
import { call, newPlatformKey, ROOT } from './helpers';

// Licensing through the gateway in cluster mode: registry and licensing are their own processes
// on PostgreSQL; licensing learns boxes from registry's events over RabbitMQ, and asks billing
// (which owns usage, docs/adr/0016) for the usage a licence's detail shows.
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

async function newKey(name: string): Promise<string> {
  return newPlatformKey(cluster, name);
}

describe('licensing through the gateway (cluster mode)', () => {
  it('when a licence is requested the moment a box is created, then it succeeds without waiting for the projection (read-through)', async () => {
    const gw = cluster.gatewayUrl;
    const owner = await newKey('Fresh box owner');
    const licensee = await newKey('Fast avatar platform');
    const claim = await call(gw, owner, 'POST', '/v1/svc/claims', {
      name: 'Emmy Noether',
      entityType: 'INDIVIDUAL',
      referenceImages: [{ url: 'https://img.example.com/emmy.jpg' }],
    });
    expect(claim.status).toBe(201);
    const claimId = claim.body.data.id as string;
    await call(gw, owner, 'POST', `/v1/svc/test-helpers/claims/${claimId}/verify`, {});
    const box = await call(gw, owner, 'POST', '/v1/svc/boxes', {
      claimId,
      policy: 'LICENSE',
      policyConfig: { licenseTypes: { personal: { price: 5, autoApprove: true } } },
    });
    const request = await call(gw, licensee, 'POST', '/v1/svc/licenses/request', {
      boxId: box.body.data.id,
      tier: 'personal',
      useCase: 'Fan chat avatar',
      acceptGuidelines: true,
    });
    expect(request.status).toBe(201);
    expect(request.body.data).toMatchObject({ status: 'approved', pricing: { monthlyFee: 5 } });
    const unknown = await call(gw, licensee, 'POST', '/v1/svc/licenses/request', {
      boxId: 'box_doesNotExist000000000',
      tier: 'personal',
      useCase: 'Fan chat avatar',
      acceptGuidelines: true,
    });
    expect(unknown.status).toBe(404);
  });

  it('when a second platform requests licenses on a boxed identity and the owner approves, then both are active licenses', async () => {
    const gw = cluster.gatewayUrl;
    const owner = await newKey('Identity owner');
    const licensee = await newKey('Avatar platform');

    const claim = await call(gw, owner, 'POST', '/v1/svc/claims', {
      name: 'Ada Lovelace',
      entityType: 'INDIVIDUAL',
      referenceImages: [{ url: 'https://img.example.com/ada.jpg' }],
    });
    expect(claim.status).toBe(201);
    const claimId = claim.body.data.id as string;
    expect((await call(gw, owner, 'POST', `/v1/svc/test-helpers/claims/${claimId}/verify`, {})).status).toBe(
      200,
    );
    const box = await call(gw, owner, 'POST', '/v1/svc/boxes', {
      claimId,
      policy: 'LICENSE',
      policyConfig: {
        licenseTypes: {
          creator: { price: 49.99, autoApprove: false },
          personal: { price: 9.99, autoApprove: true },
        },
      },
    });
    expect(box.status).toBe(201);
    const boxId = box.body.data.id as string;

    // Licensing's box projection catches up through registry.box.created.
    const terms = await waitFor(
      async () => {
        const res = await call(gw, licensee, 'GET', `/licensing/terms/${claimId}`);
        return res.status === 200 ? res : undefined;
      },
      { what: 'the box in licensing', timeoutMs: 15_000 },
    );
    expect(terms.body).toMatchObject({ auto_approve: false, pricing: { monthly_license: 49.99 } });

    const personal = await call(gw, licensee, 'POST', '/v1/svc/licenses/request', {
      boxId,
      tier: 'personal',
      useCase: 'Fan chat avatar',
      acceptGuidelines: true,
    });
    expect(personal.status).toBe(201);
    expect(personal.body.data).toMatchObject({
      status: 'approved',
      tier: 'personal',
      estimatedReviewTime: '48-72 hours',
      pricing: { monthlyFee: 9.99, royaltyRate: 0, currency: 'USD' },
    });

    const creator = await call(gw, licensee, 'POST', '/v1/svc/licenses/request', {
      boxId,
      tier: 'creator',
      useCase: 'Creator avatar',
      estimatedUsers: 1000,
      acceptGuidelines: true,
      message: 'We would love to work with you',
    });
    expect(creator.status).toBe(201);
    expect(creator.body.data).toMatchObject({ status: 'pending', pricing: { monthlyFee: 49.99 } });
    const requestId = creator.body.data.id as string;

    // Only the box owner reviews; the requester (or anyone else) cannot approve through this path.
    expect((await call(gw, licensee, 'POST', `/v1/svc/license-requests/${requestId}/approve`)).status).toBe(
      404,
    );
    const queue = await call(gw, owner, 'GET', `/v1/svc/boxes/${boxId}/license-requests?status=pending`);
    expect(queue.body.data.map((r: { id: string }) => r.id)).toEqual([requestId]);
    const approved = await call(gw, owner, 'POST', `/v1/svc/license-requests/${requestId}/approve`);
    expect(approved.status).toBe(200);

    const seen = await call(gw, licensee, 'GET', `/v1/svc/licenses/request/${requestId}`);
    expect(seen.status).toBe(200);
    expect(seen.body.data).toMatchObject({
      id: requestId,
      status: 'approved',
      license: { id: expect.stringMatching(/^lic_/), tier: 'creator', monthlyFee: 49.99 },
    });
    expect((await call(gw, owner, 'GET', `/v1/svc/licenses/request/${requestId}`)).status).toBe(404);

    const list = await call(gw, licensee, 'GET', '/v1/svc/licenses');
    expect(list.status).toBe(200);
    expect(list.body.meta.total).toBe(2);
    expect(list.body.data.map((l: { tier: string; status: string }) => [l.tier, l.status])).toEqual([
      ['creator', 'active'],
      ['personal', 'active'],
    ]);
    const detail = await call(gw, licensee, 'GET', `/v1/svc/licenses/${seen.body.data.license.id}`);
    expect(detail.body.data).toMatchObject({ boxId, identityName: 'Ada Lovelace', currency: 'USD' });
    expect((await call(gw, owner, 'GET', '/v1/svc/licenses')).body.meta.total).toBe(0);
  });
});
