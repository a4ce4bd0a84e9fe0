import {
  connectTestBroker,
  startTestCluster,
  waitFor,
  type TestBroker,
  type TestCluster,
} from '@svc/test-kit';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { isApiError, paginate, unwrap } from '@svc/sdk';
import { expectStatus, newPlatformKey, ROOT, sdkFor } from './helpers';

// Claims and boxes through the gateway in cluster mode: the registry is its own process on
// PostgreSQL, and its events reach RabbitMQ through the outbox. Calls go through @svc/sdk, the
// typed client generated from the OpenAPI document.
let cluster: TestCluster;
let broker: TestBroker;

beforeAll(async () => {
  cluster = await startTestCluster({
    rootDir: ROOT,
    output: 'silent',
  });
  // Our own temporary queue on the bus's exchange (declared by the services on connect).
  broker = await connectTestBroker(cluster.amqpUrl, ['registry.#']);
}, 60_000);

afterAll(async () => {
  await broker?.close();
  await cluster?.teardown();
});

async function newKey(): Promise<string> {
  return newPlatformKey(cluster, 'Registry E2E');
}

function eventOf(type: string, match: (data: any) => boolean) {
  return waitFor(() => broker.received.find((m) => m.routingKey === type && match(m.body.data)), {
    what: type,
    timeoutMs: 10_000,
  });
}

describe('registry through the gateway (cluster mode)', () => {
  it('when a claim is created, verified, boxed, listed and deleted, then every step answers and its event reaches RabbitMQ', async () => {
    const gw = cluster.gatewayUrl;
    const owner = sdkFor(gw, await newKey());
    const other = sdkFor(gw, await newKey());
    const operator = sdkFor(gw, cluster.adminToken);

    const { data: created } = await unwrap(
      owner.POST('/v1/svc/claims', {
        body: {
          name: 'Grace Hopper',
          variations: ['Amazing Grace', 'Rear Admiral Hopper'],
          entityType: 'INDIVIDUAL',
          referenceImages: [{ url: 'https://img.example.com/grace.jpg' }],
        },
      }),
    );
    const claimId = created.id;
    expect(created).toMatchObject({ status: 'pending', verificationTier: 'BRONZE', hasBox: false });
    expect(created.nextStep.url).toContain(claimId);
    await eventOf('registry.claim.created', (d) => d.claimId === claimId);

    // Another platform cannot see the pending claim, and cannot box it: typed errors of the closed set.
    const hidden = await unwrap(
      other.GET('/v1/svc/claims/{id}', { params: { path: { id: claimId } } }),
    ).catch((err: unknown) => err);
    expect(isApiError(hidden, 'NOT_FOUND')).toBe(true);
    const early = await owner.POST('/v1/svc/boxes', { body: { claimId, policy: 'LICENSE' } });
    expect(early.response.status).toBe(409);
    expect(early.error?.error.code).toBe('INVALID_STATE');

    const { data: verified } = await unwrap(
      operator.POST('/admin/claims/{id}/verify', {
        params: { path: { id: claimId } },
        body: { tier: 'GOLD' },
      }),
    );
    expect(verified).toMatchObject({ status: 'verified', verificationTier: 'GOLD' });
    await eventOf('registry.claim.verified', (d) => d.claimId === claimId);

    const { data: box } = await unwrap(
      owner.POST('/v1/svc/boxes', {
        body: {
          claimId,
          policy: 'LICENSE',
          enforcement: 'STRICT',
          policyConfig: { licenseTypes: { personal: { price: 9.99, autoApprove: true } } },
        },
      }),
    );
    const boxId = box.id;
    expect(box.initialScan.status).toBe('in_progress');
    const boxCreated = await eventOf('registry.box.created', (d) => d.boxId === boxId);
    expect(boxCreated.body.data).toMatchObject({ claimId, policy: 'LICENSE', identityName: 'Grace Hopper' });

    const list = await unwrap(other.GET('/v1/svc/boxes', { params: { query: { claimId } } }));
    expect(list.data).toEqual([expect.objectContaining({ id: boxId, royaltyRate: 0, status: 'active' })]);
    // Every verified claim, page after page (the SDK's pager), holds this one.
    const verifiedIds: string[] = [];
    for await (const claim of paginate(other, '/v1/svc/claims', {
      params: { query: { status: 'verified' } },
    })) {
      verifiedIds.push(claim.id);
    }
    expect(verifiedIds).toContain(claimId);
    const foreignStats = await other.GET('/v1/svc/boxes/{id}/stats', { params: { path: { id: boxId } } });
    expect(foreignStats.response.status).toBe(404);
    const stats = await unwrap(owner.GET('/v1/svc/boxes/{id}/stats', { params: { path: { id: boxId } } }));
    expect(stats.data).toMatchObject({ boxId, violations: { detected: 0 }, licenses: { total: 0 } });

    const deleted = await unwrap(owner.DELETE('/v1/svc/boxes/{id}', { params: { path: { id: boxId } } }));
    expect(deleted.data).toMatchObject({
      id: boxId,
      deleted: true,
      activeLicenses: 0,
      licenseAction: 'remain_active',
    });
    await eventOf('registry.box.deleted', (d) => d.boxId === boxId);

    const claimDeleted = await owner.DELETE('/v1/svc/claims/{id}', { params: { path: { id: claimId } } });
    expect(claimDeleted.response.status).toBe(200);
    await eventOf('registry.claim.deleted', (d) => d.claimId === claimId);
    // Four event waits and some twenty calls: more than the default 30 s on a loaded machine.
  }, 90_000);

  it('when a sandbox key calls the test helper on its own claim, then the claim is verified', async () => {
    const svc = sdkFor(cluster.gatewayUrl, await newKey());
    const { data: created } = await unwrap(
      svc.POST('/v1/svc/claims', {
        body: {
          name: 'Alan Turing',
          entityType: 'ESTATE',
          referenceImages: [{ url: 'https://img.example.com/alan.jpg' }],
        },
      }),
    );
    const res = await unwrap(
      svc.POST('/v1/svc/test-helpers/claims/{id}/verify', { params: { path: { id: created.id } }, body: {} }),
    );
    expect(res.data.status).toBe('verified');
  });

  it('when a write is retried with the same Idempotency-Key, then it runs once and the answer is replayed', async () => {
    const svc = sdkFor(cluster.gatewayUrl, await newKey());
    const body = {
      name: 'Katherine Johnson',
      entityType: 'INDIVIDUAL' as const,
      referenceImages: [{ url: 'https://img.example.com/katherine.jpg' }],
    };
    const headers = { 'Idempotency-Key': `claim-${Date.now()}` };
    const first = await svc.POST('/v1/svc/claims', { body, headers });
    const again = await svc.POST('/v1/svc/claims', { body, headers });
    expect(first.response.status).toBe(201);
    expect(again.response.headers.get('idempotent-replayed')).toBe('true');
    expect(again.data?.data.id).toBe(first.data?.data.id);
    const conflict = await svc.POST('/v1/svc/claims', { body: { ...body, name: 'Someone Else' }, headers });
    expect(conflict.error?.error.code).toBe('IDEMPOTENCY_CONFLICT');
  });

  it('when the OpenAPI document is fetched, then it is the one the SDK was generated from', async () => {
    const served = await expectStatus(200, sdkFor(cluster.gatewayUrl, undefined).GET('/v1/svc/openapi.json'));
    expect(served).toEqual(JSON.parse(readFileSync(path.join(ROOT, 'packages/sdk/openapi.json'), 'utf8')));
    for (const path of [
      '/v1/svc/claims',
      '/v1/svc/claims/{id}',
      '/v1/svc/claims/{id}/variations',
      '/v1/svc/claims/{id}/images',
      '/v1/svc/boxes',
      '/v1/svc/boxes/{id}',
      '/v1/svc/boxes/{id}/stats',
      '/admin/claims/{id}/verify',
      '/admin/claims/{id}/reject',
      '/v1/svc/test-helpers/claims/{id}/verify',
    ]) {
      expect(served.paths).toHaveProperty([path]);
    }
  });
});
