import { boxCreated } from '@svc/contracts';
import { waitFor, startEmbeddedUnderTest } from '@svc/test-kit';
import { licensingEmbedded } from '../../src';
import { LICENSE_CONFIG, requestBody } from '../fixtures/licensing-harness';

// A whole service on PGlite (PostgreSQL in WebAssembly: about 3 s to start and migrate on a quiet
// machine, several times that when the two cores are shared): more than the default 30 s budget.
jest.setTimeout(90_000);

const SECRET = 'embedded-test-secret-0123456789-abcdefgh';

describe('licensingEmbedded (PGlite + in-process bus)', () => {
  it('when started the embedded way, then the box projection, requests, licenses and events work on PGlite', async () => {
    expect(licensingEmbedded.urlVariable).toBe('LICENSING_URL');
    const service = await startEmbeddedUnderTest(licensingEmbedded, {
      prefix: 'licensing',
      jwtSecret: SECRET,
    });
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
      expect((await call('GET', `/v1/svc/licenses/${list.body.data[0].id}`)).status).toBe(200);
      await waitFor(() => seen.filter((t) => t === 'licensing.request.created').length === 2, {
        what: 'events',
      });
      expect(seen).toEqual(
        expect.arrayContaining(['licensing.request.approved', 'licensing.license.activated']),
      );
    } finally {
      await service.stop();
    }
  });
});
