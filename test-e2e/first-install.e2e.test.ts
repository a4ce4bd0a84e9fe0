import { EVENT_QUEUES } from '@svc/contracts/topology';
import { unwrap } from '@svc/sdk';
import {
  connectTestBroker,
  startTestCluster,
  waitFor,
  type TestBroker,
  type TestCluster,
} from '@svc/test-kit';
import { newPlatformKey, ROOT, sdkFor } from './helpers';

// A first install: the registry runs on a broker (a vhost of its own) where detection, licensing
// and enforcement have never started. A claim and a box made now must still reach them when they
// first start: their queues exist, with the events waiting, because every service declares the
// whole event topology before it publishes (packages/contracts/src/topology.ts).
let cluster: TestCluster;
let broker: TestBroker;

beforeAll(async () => {
  cluster = await startTestCluster({ rootDir: ROOT, services: ['registry'], output: 'silent' });
  broker = await connectTestBroker(cluster.amqpUrl);
}, 90_000);

afterAll(async () => {
  await broker?.close();
  await cluster?.teardown();
});

describe('a first install, before the consumers have ever run', () => {
  it('when only the registry has started and a claim is verified and boxed, then the events wait in the queues of the services that will consume them', async () => {
    for (const { queue } of EVENT_QUEUES) expect([queue, await broker.waiting(queue)]).toEqual([queue, 0]);

    const owner = sdkFor(cluster.gatewayUrl, await newPlatformKey(cluster, 'First install'));
    const { data: claim } = await unwrap(
      owner.POST('/v1/svc/claims', {
        body: {
          name: 'Philippa Firstrun',
          entityType: 'INDIVIDUAL',
          referenceImages: [{ url: 'https://img.example.com/philippa.jpg' }],
        },
      }),
    );
    await unwrap(
      owner.POST('/v1/svc/test-helpers/claims/{id}/verify', { params: { path: { id: claim.id } }, body: {} }),
    );
    await unwrap(owner.POST('/v1/svc/boxes', { body: { claimId: claim.id, policy: 'BLOCK_ALL' } }));

    // claim.created, claim.verified, box.created for detection; box.created for licensing and enforcement.
    await waitFor(async () => ((await broker.waiting('detection.identities')) ?? 0) >= 3, {
      what: "the claim's and the box's events in detection's queue",
      timeoutMs: 20_000,
    });
    await waitFor(async () => ((await broker.waiting('licensing.boxes')) ?? 0) >= 1, {
      what: "the box's event in licensing's queue",
      timeoutMs: 20_000,
    });
    await waitFor(async () => ((await broker.waiting('enforcement.boxes')) ?? 0) >= 1, {
      what: "the box's event in enforcement's queue",
      timeoutMs: 20_000,
    });
  });
});
