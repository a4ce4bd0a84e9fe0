import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { EventEnvelope } from '@svc/contracts/common';
import { gracePeriodStarted } from '@svc/contracts/enforcement';
import { licenseRequestApproved } from '@svc/contracts/licensing';
import { connectTestBroker, startTestCluster, waitFor, type TestCluster } from '@svc/test-kit';
import { paginate, unwrap, verifyWebhook, webhookEventType } from '@svc/sdk';
import { newPlatform, ROOT, sdkFor } from './helpers';

// Cluster mode: the gateway and the webhook dispatcher as processes on PostgreSQL and RabbitMQ.
// The licensing and enforcement services are stood in for by publishing their contract events
// straight onto the 'svc.events' exchange. Calls go through @svc/sdk, which also verifies the
// deliveries' signatures.

let cluster: TestCluster;
let amqpUrl: string;
let receiver: Server;
let receiverUrl: string;
const received: { headers: Record<string, string>; body: string }[] = [];

beforeAll(async () => {
  receiver = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      received.push({
        headers: {
          'webhook-id': String(req.headers['webhook-id']),
          'webhook-timestamp': String(req.headers['webhook-timestamp']),
          'webhook-signature': String(req.headers['webhook-signature']),
        },
        body: Buffer.concat(chunks).toString('utf8'),
      });
      res.writeHead(200).end();
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
  receiverUrl = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhooks`;
  cluster = await startTestCluster({
    rootDir: ROOT,
    // Only what this flow needs, so that services other engineers are building cannot break it.
    services: ['webhook-dispatcher'],
    env: { SVC_ALLOW_PRIVATE_FETCH: 'true' },
    output: 'silent',
  });
  amqpUrl = cluster.amqpUrl;
}, 60_000);

afterAll(async () => {
  await cluster?.teardown();
  receiver?.closeAllConnections();
  await new Promise((resolve) => receiver?.close(resolve));
});

async function publish(envelope: EventEnvelope): Promise<void> {
  const broker = await connectTestBroker(amqpUrl);
  try {
    await broker.publish(envelope);
  } finally {
    await broker.close();
  }
}

describe('webhooks through the gateway in cluster mode', () => {
  it('when a license is approved and a grace period starts, then signed events reach the registered endpoint', async () => {
    const { platformId, key } = await newPlatform(cluster, 'Webhook Avatars', 'basic');
    const svc = sdkFor(cluster.gatewayUrl, key);

    const { data: created } = await unwrap(svc.POST('/v1/svc/webhooks', { body: { url: receiverUrl } }));
    const { id: endpointId, secret } = created;
    expect(secret).toMatch(/^whsec_/);
    const other = await sdkFor(cluster.gatewayUrl, cluster.bootstrapKey).GET('/v1/svc/webhooks/{id}', {
      params: { path: { id: endpointId } },
    });
    expect(other.response.status).toBe(404);

    const now = new Date();
    await publish(
      licenseRequestApproved.create(
        {
          requestId: 'req_e2e',
          boxId: 'box_e2e',
          claimId: 'claim_e2e',
          identityName: 'Ada Lovelace',
          tier: 'commercial',
          licenseePlatformId: platformId,
          boxOwnerPlatformId: 'plat_owner',
          submittedAt: now.toISOString(),
          licenseId: 'lic_e2e',
          approvedAt: now.toISOString(),
          automatic: true,
        },
        { occurredAt: now, platformId },
      ),
    );
    await publish(
      gracePeriodStarted.create(
        {
          gracePeriodId: 'gp_e2e',
          violationId: 'viol_e2e',
          boxId: 'box_e2e',
          claimId: 'claim_e2e',
          identityName: 'Ada Lovelace',
          boxOwnerPlatformId: 'plat_owner',
          policy: 'LICENSE',
          status: 'active',
          startedAt: now.toISOString(),
          expiresAt: new Date(now.getTime() + 86_400_000).toISOString(),
          daysRemaining: 30,
          avatarIds: ['av_e2e'],
        },
        { occurredAt: now, platformId },
      ),
    );

    await waitFor(() => received.length >= 4, { timeoutMs: 15_000, what: 'four webhooks' });
    const bodies = received.map((r) => verifyWebhook(secret, r.body, r.headers));
    expect(bodies.map(webhookEventType).sort()).toEqual([
      'boxing.created',
      'boxing.grace_started',
      'grace_period.started',
      'license.approved',
    ]);
    for (const body of bodies) {
      if ('event' in body && body.event === 'license.approved') expect(body.data.license_id).toBe('lic_e2e');
      if ('type' in body && body.type === 'grace_period.started')
        expect(body.data.gracePeriodId).toBe('gp_e2e');
      if ('event' in body && body.event === 'boxing.created') {
        expect(body.data).toMatchObject({ identity_id: 'claim_e2e', deadline: expect.any(String) });
      }
    }

    const deliveries = [];
    for await (const delivery of paginate(svc, '/v1/svc/webhooks/{id}/deliveries', {
      params: { path: { id: endpointId } },
    })) {
      deliveries.push(delivery);
    }
    expect(deliveries).toHaveLength(4);
    expect(deliveries.every((d) => d.status === 'succeeded')).toBe(true);
  });
});
