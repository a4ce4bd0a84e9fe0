import { waitFor, startEmbeddedUnderTest } from '@svc/test-kit';
import { registryEmbedded } from '../../src';
import { claimBody } from '../fixtures/registry-harness';

// A whole service on PGlite (PostgreSQL in WebAssembly: about 3 s to start and migrate on a quiet
// machine, several times that when the two cores are shared): more than the default 30 s budget.
jest.setTimeout(90_000);

const SECRET = 'embedded-test-secret-0123456789-abcdefgh';

describe('registryEmbedded (PGlite + in-process bus)', () => {
  it('when started the embedded way, then claims, boxes, lists and events work on PGlite', async () => {
    const service = await startEmbeddedUnderTest(registryEmbedded, { prefix: 'registry', jwtSecret: SECRET });
    const { seen, call } = service;
    try {
      const claim = await call('POST', '/v1/svc/claims', claimBody());
      expect(claim.status).toBe(201);
      expect(
        (await call('POST', `/v1/svc/test-helpers/claims/${claim.body.data.id}/verify`, {})).status,
      ).toBe(200);
      const box = await call('POST', '/v1/svc/boxes', { claimId: claim.body.data.id, policy: 'OPEN' });
      expect(box.status).toBe(201);
      const list = await call('GET', '/v1/svc/boxes');
      expect(list.body.meta.total).toBe(1);
      expect((await call('GET', `/v1/svc/boxes/${box.body.data.id}/stats`)).status).toBe(200);
      await waitFor(() => seen.includes('registry.box.created'), { what: 'box.created' });
      expect(seen).toEqual(['registry.claim.created', 'registry.claim.verified', 'registry.box.created']);
    } finally {
      await service.stop();
    }
  });
});
