import { boxCreated } from '@svc/contracts/registry';
import { waitFor, startEmbeddedUnderTest } from '@svc/test-kit';
import { enforcementEmbedded } from '../../src';
import { startFakeDetection } from '../fixtures/fake-detection';

// A whole service on PGlite (PostgreSQL in WebAssembly: about 3 s to start and migrate on a quiet
// machine, several times that when the two cores are shared): more than the default 30 s budget.
jest.setTimeout(90_000);

const SECRET = 'embedded-test-secret-0123456789-abcdefgh';

describe('enforcementEmbedded (PGlite + in-process bus)', () => {
  it('when started the embedded way, then avatars, violations, the timeline and its events work on PGlite', async () => {
    const detection = await startFakeDetection(SECRET);
    expect(enforcementEmbedded.urlVariable).toBe('ENFORCEMENT_URL');
    const service = await startEmbeddedUnderTest(enforcementEmbedded, {
      prefix: 'enforcement',
      jwtSecret: SECRET,
      serviceUrls: { DETECTION_URL: detection.url },
    });
    const { bus, seen, call } = service;
    try {
      const now = new Date();
      const box = {
        boxId: 'box_embedded0000000000001',
        claimId: 'claim_embedded00000000001',
        ownerPlatformId: 'plat_owner',
        identityName: 'Ada Lovelace',
        policy: 'BLOCK_ALL' as const,
        enforcement: 'MODERATE' as const,
        policyConfig: {},
      };
      detection.identities.push({
        name: 'Ada Lovelace',
        match: {
          ...box,
          confidence: 0.9,
          layer: 1,
          classification: 'EXACT_MATCH',
          matchedVariations: [],
          imageMatchScore: null,
          parodyLikelihood: 0,
        },
      });
      await bus.publish(
        boxCreated.create(
          {
            ...box,
            variations: [],
            entityType: 'INDIVIDUAL',
            verificationTier: 'SILVER',
            royaltyRate: 0,
            referenceImageUrls: [],
            status: 'active',
            createdAt: now.toISOString(),
            updatedAt: now.toISOString(),
          },
          { occurredAt: now, platformId: 'plat_owner' },
        ),
      );
      const avatar = await call('POST', '/v1/svc/avatars', {
        id: 'e1',
        name: 'Ada Lovelace',
        creatorId: 'c',
        userCount: 3,
      });
      expect(avatar.status).toBe(201);
      const violationId = avatar.body.data.openViolations[0];
      const appeal = await call('POST', `/v1/svc/violations/${violationId}/appeal`, {
        reason: 'other',
        explanation: 'x',
      });
      await call('POST', `/v1/svc/test-helpers/appeals/${appeal.body.data.appeal.id}/decide`, {
        outcome: 'denied',
      });
      const advanced = await call('POST', '/v1/svc/test-helpers/advance-time', { seconds: 86_400 });
      expect(advanced.body.data.stepsFired).toBe(5);
      expect((await call('GET', `/v1/svc/violations/${violationId}`)).body.data.status).toBe('enforced');
      expect((await call('GET', '/enforcement/obligations')).body.takedowns).toHaveLength(1);
      await waitFor(() => seen.includes('enforcement.violation.enforced'), { what: 'violation.enforced' });
    } finally {
      await service.stop();
      await detection.close();
    }
  });
});
