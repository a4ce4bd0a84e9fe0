import {
  connectTestBroker,
  startTestCluster,
  waitFor,
  type TestBroker,
  type TestCluster,
} from '@svc/test-kit';
import { call, newPlatformKey, ROOT } from './helpers';

// Claims and boxes through the gateway in cluster mode: the registry is its own process on
// PostgreSQL, and its events reach RabbitMQ through the outbox.
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
    const key = await newKey();
    const other = await newKey();

    const created = await call(gw, key, 'POST', '/v1/svc/claims', {
      name: 'Grace Hopper',
      variations: ['Amazing Grace', 'Rear Admiral Hopper'],
      entityType: 'INDIVIDUAL',
      referenceImages: [{ url: 'https://img.example.com/grace.jpg' }],
    });
    expect(created.status).toBe(201);
    const claimId = created.body.data.id as string;
    expect(created.body.data).toMatchObject({ status: 'pending', verificationTier: 'BRONZE', hasBox: false });
    expect(created.body.data.nextStep.url).toContain(claimId);
    await eventOf('registry.claim.created', (d) => d.claimId === claimId);

    // Another platform cannot see the pending claim, and cannot box it.
    expect((await call(gw, other, 'GET', `/v1/svc/claims/${claimId}`)).status).toBe(404);
    const early = await call(gw, key, 'POST', '/v1/svc/boxes', { claimId, policy: 'LICENSE' });
    expect(early.status).toBe(409);

    const verified = await call(gw, cluster.adminToken, 'POST', `/admin/claims/${claimId}/verify`, {
      tier: 'GOLD',
    });
    expect(verified.status).toBe(200);
    expect(verified.body.data).toMatchObject({ status: 'verified', verificationTier: 'GOLD' });
    await eventOf('registry.claim.verified', (d) => d.claimId === claimId);

    const box = await call(gw, key, 'POST', '/v1/svc/boxes', {
      claimId,
      policy: 'LICENSE',
      enforcement: 'STRICT',
      policyConfig: { licenseTypes: { personal: { price: 9.99, autoApprove: true } } },
    });
    expect(box.status).toBe(201);
    const boxId = box.body.data.id as string;
    expect(box.body.data.initialScan.status).toBe('in_progress');
    const boxCreated = await eventOf('registry.box.created', (d) => d.boxId === boxId);
    expect(boxCreated.body.data).toMatchObject({ claimId, policy: 'LICENSE', identityName: 'Grace Hopper' });

    const list = await call(gw, other, 'GET', `/v1/svc/boxes?claimId=${claimId}`);
    expect(list.status).toBe(200);
    expect(list.body.data).toEqual([
      expect.objectContaining({ id: boxId, royaltyRate: 0, status: 'active' }),
    ]);
    const claims = await call(gw, other, 'GET', '/v1/svc/claims?status=verified&limit=100');
    expect(claims.body.data.map((c: { id: string }) => c.id)).toContain(claimId);
    expect((await call(gw, other, 'GET', `/v1/svc/boxes/${boxId}/stats`)).status).toBe(404);
    const stats = await call(gw, key, 'GET', `/v1/svc/boxes/${boxId}/stats`);
    expect(stats.body.data).toMatchObject({ boxId, violations: { detected: 0 }, licenses: { total: 0 } });

    const deleted = await call(gw, key, 'DELETE', `/v1/svc/boxes/${boxId}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body.data).toMatchObject({
      id: boxId,
      deleted: true,
      activeLicenses: 0,
      licenseAction: 'remain_active',
    });
    await eventOf('registry.box.deleted', (d) => d.boxId === boxId);

    const claimDeleted = await call(gw, key, 'DELETE', `/v1/svc/claims/${claimId}`);
    expect(claimDeleted.status).toBe(200);
    await eventOf('registry.claim.deleted', (d) => d.claimId === claimId);
  });

  it('when a sandbox key calls the test helper on its own claim, then the claim is verified', async () => {
    const key = await newKey();
    const created = await call(cluster.gatewayUrl, key, 'POST', '/v1/svc/claims', {
      name: 'Alan Turing',
      entityType: 'ESTATE',
      referenceImages: [{ url: 'https://img.example.com/alan.jpg' }],
    });
    const res = await call(
      cluster.gatewayUrl,
      key,
      'POST',
      `/v1/svc/test-helpers/claims/${created.body.data.id}/verify`,
      {},
    );
    expect(res.status).toBe(200);
    expect(res.body.data.status).toBe('verified');
  });

  it('when the OpenAPI document is fetched, then it lists the registry paths', async () => {
    const key = await newKey();
    const res = await call(cluster.gatewayUrl, key, 'GET', '/v1/svc/openapi.json');
    expect(res.status).toBe(200);
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
      expect(res.body.paths).toHaveProperty([path]);
    }
    expect(res.body.paths['/v1/svc/claims'].post.responses['201']).toBeDefined();
  });
});
