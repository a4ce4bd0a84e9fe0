import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { gracePeriodReminder } from '@svc/contracts/enforcement';
import { InProcessMessageBus } from '@svc/messaging';
import { signInternalToken } from '@svc/service-kit';
import { waitFor } from '@svc/test-kit';
import { Webhook } from 'standardwebhooks';
import { webhookDispatcherEmbedded } from '../../src';
import { silent, startReceiver } from '../fixtures/dispatcher-harness';

// The embedded form (services/embedded): PGlite files under a data directory, the shared
// in-process bus, port 0. Run with NODE_OPTIONS=--experimental-vm-modules (PGlite).

const SECRET = 'embedded-internal-secret-0123456789-abcdef';

// PGlite's start and migrations take most of this test; on a loaded two-core machine that alone
// came to 30 s once (CI, after the likeness suite), as in the other services' embedded tests.
jest.setTimeout(90_000);

it('when started embedded, then an endpoint registered over HTTP gets a signed delivery of a bus event', async () => {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'webhooks-embedded-'));
  const bus = new InProcessMessageBus({ logger: silent });
  const receiver = await startReceiver();
  const running = await webhookDispatcherEmbedded.start({
    dataDir,
    bus,
    logger: silent,
    environment: 'sandbox',
    internalJwtSecret: SECRET,
    allowPrivateFetch: true,
  });
  try {
    expect(webhookDispatcherEmbedded.urlVariable).toBe('WEBHOOK_DISPATCHER_URL');
    const platformId = 'plat_embedded';
    const token = signInternalToken(SECRET, {
      platformId,
      environment: 'sandbox',
      keyId: 'key_embedded',
      plan: 'basic',
    });
    const created = await fetch(`${running.url}/v1/svc/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url: receiver.url }),
    });
    expect(created.status).toBe(201);
    const endpoint = ((await created.json()) as { data: { id: string; secret: string } }).data;
    expect(endpoint.secret).toMatch(/^whsec_/);

    const now = new Date();
    const envelope = gracePeriodReminder.create(
      {
        gracePeriodId: 'gp_embedded',
        violationId: 'viol_1',
        boxId: 'box_1',
        claimId: 'claim_1',
        identityName: 'Ada Lovelace',
        boxOwnerPlatformId: 'plat_owner',
        policy: 'LICENSE',
        status: 'active',
        startedAt: now.toISOString(),
        expiresAt: new Date(now.getTime() + 30 * 86_400_000).toISOString(),
        daysRemaining: 23,
        avatarIds: ['av_1'],
        reminderDay: 7,
      },
      { occurredAt: now, platformId },
    );
    await bus.publish(envelope);

    const [got] = await waitFor(() => receiver.received.length > 0 && receiver.received, {
      timeoutMs: 10_000,
      what: 'the delivery',
    });
    const headers = {
      'webhook-id': String(got?.headers['webhook-id']),
      'webhook-timestamp': String(got?.headers['webhook-timestamp']),
      'webhook-signature': String(got?.headers['webhook-signature']),
    };
    const verified = new Webhook(endpoint.secret).verify(got?.body ?? '', headers) as {
      id: string;
      type: string;
      data: { gracePeriodId: string; identityName: string; reminderDay: number };
    };
    expect(verified.type).toBe('grace_period.reminder');
    expect(verified.id).toBe(headers['webhook-id']);
    expect(verified.data).toMatchObject({
      gracePeriodId: 'gp_embedded',
      identityName: 'Ada Lovelace',
      reminderDay: 7,
    });
    // A wrong secret does not verify.
    expect(() =>
      new Webhook(`whsec_${Buffer.from('x'.repeat(32)).toString('base64')}`).verify(got?.body ?? '', headers),
    ).toThrow();

    // The delivery is recorded as succeeded, visible through the API.
    const listed = await waitFor(
      async () => {
        const res = await fetch(`${running.url}/v1/svc/webhooks/${endpoint.id}/deliveries`, {
          headers: { authorization: `Bearer ${token}` },
        });
        const body = (await res.json()) as { data: { status: string }[] };
        return body.data[0]?.status === 'succeeded' && body.data;
      },
      { what: 'the succeeded delivery' },
    );
    expect(listed).toHaveLength(1);
    expect(receiver.received).toHaveLength(1);
  } finally {
    await running.stop();
    await bus.close();
    await receiver.close();
    await rm(dataDir, { recursive: true, force: true });
  }
});
