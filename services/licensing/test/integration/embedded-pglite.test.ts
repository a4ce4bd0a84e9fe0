import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { boxCreated } from '@svc/contracts/registry';
import { waitFor, startEmbeddedUnderTest } from '@svc/test-kit';
import { licensingEmbedded } from '../../src';
import { LICENSE_CONFIG, requestBody } from '../fixtures/licensing-harness';

// A whole service on PGlite (PostgreSQL in WebAssembly: about 3 s to start and migrate on a quiet
// machine, several times that when the two cores are shared): more than the default 30 s budget.
jest.setTimeout(90_000);

const SECRET = 'embedded-test-secret-0123456789-abcdefgh';

/** Billing's usage route answering zeros for every license and period (docs/adr/0016). */
async function startZeroUsageBilling(): Promise<{ url: string; stop(): Promise<void> }> {
  const server = createServer((req, res) => {
    const [, , , licenseId = '', , period = ''] = (req.url ?? '').split('/');
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(
      JSON.stringify({
        data: {
          licenseId,
          period,
          version: 0,
          subscribers: 0,
          messages: 0,
          revenueCents: 0,
          royaltyDueCents: 0,
        },
      }),
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

describe('licensingEmbedded (PGlite + in-process bus)', () => {
  it('when started the embedded way, then the box projection, requests, licenses and events work on PGlite', async () => {
    expect(licensingEmbedded.urlVariable).toBe('LICENSING_URL');
    const serviceUrls: Record<string, string> = {};
    const service = await startEmbeddedUnderTest(licensingEmbedded, {
      prefix: 'licensing',
      jwtSecret: SECRET,
      serviceUrls,
    });
    // As in the embedded default, billing starts after licensing: its URL is known only then.
    const billing = await startZeroUsageBilling();
    serviceUrls.BILLING_URL = billing.url;
    const { bus, seen, call } = service;
    try {
      const now = new Date().toISOString();
      await bus.publish(
        boxCreated.create(
          {
            boxId: 'box_embedded0000000000001',
            claimId: 'claim_embedded00000000001',
            ownerPlatformId: 'plat_owner',
            identityName: 'Ada Lovelace',
            variations: [],
            entityType: 'INDIVIDUAL',
            verificationTier: 'SILVER',
            policy: 'LICENSE',
            enforcement: 'MODERATE',
            policyConfig: LICENSE_CONFIG,
            royaltyRate: 0,
            referenceImageUrls: [],
            status: 'active',
            createdAt: now,
            updatedAt: now,
          },
          { occurredAt: new Date(now), platformId: 'plat_owner' },
        ),
      );
      const personal = await call(
        'POST',
        '/v1/svc/licenses/request',
        requestBody('box_embedded0000000000001', { tier: 'personal' }),
      );
      expect(personal.status).toBe(201);
      expect(personal.body.data.status).toBe('approved');
      const creator = await call(
        'POST',
        '/v1/svc/licenses/request',
        requestBody('box_embedded0000000000001'),
      );
      expect(creator.body.data.status).toBe('pending');
      const list = await call('GET', '/v1/svc/licenses');
      expect(list.body.meta.total).toBe(1);
      const detail = await call('GET', `/v1/svc/licenses/${list.body.data[0].id}`);
      expect(detail.status).toBe(200);
      expect(detail.body.data.usage).toMatchObject({ subscribers: 0, revenue: 0, royaltyDue: 0 });
      await waitFor(() => seen.filter((t) => t === 'licensing.request.created').length === 2, {
        what: 'events',
      });
      expect(seen).toEqual(
        expect.arrayContaining(['licensing.request.approved', 'licensing.license.activated']),
      );
    } finally {
      await service.stop();
      await billing.stop();
    }
  });
});
