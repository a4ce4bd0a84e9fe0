import { isApiError, unwrap, type ApiError, type SvcClient } from '@svc/sdk';
import { startTestCluster, waitFor, type TestCluster } from '@svc/test-kit';
import { newPlatformKey, ROOT, sdkFor } from './helpers';

// Licensing through the gateway in cluster mode: registry and licensing are their own processes
// on PostgreSQL; licensing learns boxes from registry's events over RabbitMQ, and asks billing
// (which owns usage, docs/adr/0016) for the usage a licence's detail shows. Calls go through
// @svc/sdk, the typed client generated from the OpenAPI document.
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

async function newClient(name: string): Promise<SvcClient> {
  return sdkFor(cluster.gatewayUrl, await newPlatformKey(cluster, name));
}

/** A verified claim of `owner` named `name`: its id. */
async function verifiedClaim(owner: SvcClient, name: string, image: string): Promise<string> {
  const { data: claim } = await unwrap(
    owner.POST('/v1/svc/claims', {
      body: {
        name,
        entityType: 'INDIVIDUAL',
        referenceImages: [{ url: `https://img.example.com/${image}` }],
      },
    }),
  );
  await unwrap(
    owner.POST('/v1/svc/test-helpers/claims/{id}/verify', { params: { path: { id: claim.id } }, body: {} }),
  );
  return claim.id;
}

describe('licensing through the gateway (cluster mode)', () => {
  it('when a licence is requested the moment a box is created, then it succeeds without waiting for the projection (read-through)', async () => {
    const owner = await newClient('Fresh box owner');
    const licensee = await newClient('Fast avatar platform');
    const claimId = await verifiedClaim(owner, 'Emmy Noether', 'emmy.jpg');
    const { data: box } = await unwrap(
      owner.POST('/v1/svc/boxes', {
        body: {
          claimId,
          policy: 'LICENSE',
          policyConfig: { licenseTypes: { personal: { price: 5, autoApprove: true } } },
        },
      }),
    );
    const request = await unwrap(
      licensee.POST('/v1/svc/licenses/request', {
        body: { boxId: box.id, tier: 'personal', useCase: 'Fan chat avatar', acceptGuidelines: true },
      }),
    );
    expect(request.data).toMatchObject({ status: 'approved', pricing: { monthlyFee: 5 } });
    const unknown = await unwrap(
      licensee.POST('/v1/svc/licenses/request', {
        body: {
          boxId: 'box_doesNotExist000000000',
          tier: 'personal',
          useCase: 'Fan chat avatar',
          acceptGuidelines: true,
        },
      }),
    ).catch((err: unknown) => err);
    expect(isApiError(unknown, 'NOT_FOUND')).toBe(true);
    expect((unknown as ApiError).status).toBe(404);
  });

  it('when a second platform requests licenses on a boxed identity and the owner approves, then both are active licenses', async () => {
    const owner = await newClient('Identity owner');
    const licensee = await newClient('Avatar platform');
    const claimId = await verifiedClaim(owner, 'Ada Lovelace', 'ada.jpg');
    const { data: box } = await unwrap(
      owner.POST('/v1/svc/boxes', {
        body: {
          claimId,
          policy: 'LICENSE',
          policyConfig: {
            licenseTypes: {
              creator: { price: 49.99, autoApprove: false },
              personal: { price: 9.99, autoApprove: true },
            },
          },
        },
      }),
    );
    const boxId = box.id;

    // Licensing's box projection catches up through registry.box.created.
    const terms = await waitFor(
      async () => {
        const res = await licensee.GET('/licensing/terms/{identity_id}', {
          params: { path: { identity_id: claimId } },
        });
        return res.data;
      },
      { what: 'the box in licensing', timeoutMs: 15_000 },
    );
    expect(terms).toMatchObject({ auto_approve: false, pricing: { monthly_license: 49.99 } });

    const personal = await unwrap(
      licensee.POST('/v1/svc/licenses/request', {
        body: { boxId, tier: 'personal', useCase: 'Fan chat avatar', acceptGuidelines: true },
      }),
    );
    expect(personal.data).toMatchObject({
      status: 'approved',
      tier: 'personal',
      estimatedReviewTime: '48-72 hours',
      pricing: { monthlyFee: 9.99, royaltyRate: 0, currency: 'USD' },
    });

    const creator = await unwrap(
      licensee.POST('/v1/svc/licenses/request', {
        body: {
          boxId,
          tier: 'creator',
          useCase: 'Creator avatar',
          estimatedUsers: 1000,
          acceptGuidelines: true,
          message: 'We would love to work with you',
        },
      }),
    );
    expect(creator.data).toMatchObject({ status: 'pending', pricing: { monthlyFee: 49.99 } });
    const requestId = creator.data.id;
    const byRequest = { params: { path: { id: requestId } } };

    // Only the box owner reviews; the requester (or anyone else) cannot approve through this path.
    const notTheOwner = await licensee.POST('/v1/svc/license-requests/{id}/approve', byRequest);
    expect(notTheOwner.response.status).toBe(404);
    expect(notTheOwner.error?.error.code).toBe('NOT_FOUND');
    const queue = await unwrap(
      owner.GET('/v1/svc/boxes/{id}/license-requests', {
        params: { path: { id: boxId }, query: { status: 'pending' } },
      }),
    );
    expect(queue.data.map((r) => r.id)).toEqual([requestId]);
    await unwrap(owner.POST('/v1/svc/license-requests/{id}/approve', byRequest));

    const seen = await unwrap(licensee.GET('/v1/svc/licenses/request/{id}', byRequest));
    expect(seen.data).toMatchObject({
      id: requestId,
      status: 'approved',
      license: { id: expect.stringMatching(/^lic_/), tier: 'creator', monthlyFee: 49.99 },
    });
    expect((await owner.GET('/v1/svc/licenses/request/{id}', byRequest)).response.status).toBe(404);

    const list = await unwrap(licensee.GET('/v1/svc/licenses'));
    expect(list.meta.total).toBe(2);
    expect(list.data.map((l) => [l.tier, l.status])).toEqual([
      ['creator', 'active'],
      ['personal', 'active'],
    ]);
    const licenseId = seen.data.license?.id ?? '';
    const detail = await unwrap(
      licensee.GET('/v1/svc/licenses/{id}', { params: { path: { id: licenseId } } }),
    );
    expect(detail.data).toMatchObject({ boxId, identityName: 'Ada Lovelace', currency: 'USD' });
    expect((await unwrap(owner.GET('/v1/svc/licenses'))).meta.total).toBe(0);
  });
});
