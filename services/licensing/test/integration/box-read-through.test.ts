import { boxUpdated, INTERNAL_BOX_PATH } from '@svc/contracts/registry';
import { newId } from '@svc/ids';
import {
  internalClient,
  platformClaims,
  startFakeSnapshotOwner,
  type FakeSnapshotOwner,
} from '@svc/test-kit';
import {
  JWT_SECRET,
  LICENSE_CONFIG,
  requestBody,
  startLicensingHarness,
  type LicensingHarness,
} from '../fixtures/licensing-harness';

// ADR 0010: a license request on a box the registry created a moment ago, before licensing's box
// projection has heard of it, asks the registry instead of answering 404.

describe('a license request on a box licensing has not projected yet', () => {
  let registry: FakeSnapshotOwner;
  let h: LicensingHarness;

  beforeAll(async () => {
    registry = await startFakeSnapshotOwner(JWT_SECRET, INTERNAL_BOX_PATH);
    h = await startLicensingHarness({ registryUrl: registry.url });
  });

  afterAll(async () => {
    await h.stop();
    await registry.stop();
  });

  const registryBox = (version: number, policy = 'LICENSE') => {
    const owner = h.platform();
    const boxId = newId('box');
    const entity = {
      boxId,
      claimId: newId('claim'),
      ownerPlatformId: owner.platformId,
      identityName: 'Ada Lovelace',
      variations: [],
      entityType: 'INDIVIDUAL',
      verificationTier: 'SILVER',
      policy,
      enforcement: 'MODERATE',
      policyConfig: LICENSE_CONFIG,
      royaltyRate: 0,
      referenceImageUrls: [],
      status: 'active',
      createdAt: '2026-11-22T09:59:59.000Z',
      updatedAt: '2026-11-22T09:59:59.000Z',
    };
    registry.entities.set(boxId, { version, entity });
    return { boxId, owner, entity };
  };

  it('when the registry created the box a moment ago, then the request succeeds at once, priced from the registry', async () => {
    const { boxId } = registryBox(1);
    const licensee = h.platform();
    const reply = await licensee.call(
      'POST',
      '/v1/svc/licenses/request',
      requestBody(boxId, { tier: 'personal' }),
    );
    expect(reply.status).toBe(201);
    expect(reply.body.data).toMatchObject({ boxId, status: 'approved', pricing: { monthlyFee: 9.99 } });
    expect(registry.callers.at(-1)).toBe('licensing');
  });

  it('when the box is projected by the read-through, then an older event still on its way changes nothing and a newer one applies', async () => {
    const { boxId, entity } = registryBox(2);
    const licensee = h.platform();
    expect((await licensee.call('POST', '/v1/svc/licenses/request', requestBody(boxId))).status).toBe(201);
    const asked = registry.callers.length;
    const older = boxUpdated.create(
      { ...entity, policy: 'BLOCK_ALL', policyConfig: {} } as Parameters<typeof boxUpdated.create>[0],
      { occurredAt: h.clock.now() },
    );
    await h.publish({ ...older, entity: { id: boxId, version: 1 } });
    const stillLicensable = await licensee.call('POST', '/v1/svc/licenses/request', requestBody(boxId));
    expect(stillLicensable.status).toBe(201);
    await h.publish({ ...older, id: newId('evt'), entity: { id: boxId, version: 3 } });
    const blocked = await licensee.call('POST', '/v1/svc/licenses/request', requestBody(boxId));
    expect(blocked.status).toBe(409);
    // Once projected, the registry is not asked again.
    expect(registry.callers.length).toBe(asked);
  });

  it('when the request fails after the read-through stored the box, then a retry with the same Idempotency-Key carries it out (the key did not commit with the box)', async () => {
    const { boxId } = registryBox(1);
    const licensee = h.platform();
    const key = `read-through-${newId('req')}`;
    // The database goes away after the box was projected, before the request's own write: the
    // same SQLSTATE a PostgreSQL restart sends (57P01), raised by a trigger on that write.
    await h.running.db.exec(`
      CREATE FUNCTION refuse_requests() RETURNS trigger AS $$
      BEGIN RAISE EXCEPTION 'terminating connection due to administrator command' USING ERRCODE = '57P01'; END
      $$ LANGUAGE plpgsql;
      CREATE TRIGGER refuse_requests BEFORE INSERT ON license_requests FOR EACH ROW EXECUTE FUNCTION refuse_requests();
    `);
    let failed;
    try {
      failed = await licensee.call('POST', '/v1/svc/licenses/request', requestBody(boxId), {
        'idempotency-key': key,
      });
    } finally {
      await h.running.db.exec(
        'DROP TRIGGER refuse_requests ON license_requests; DROP FUNCTION refuse_requests();',
      );
    }
    expect(failed.status).toBe(503);

    const retried = await licensee.call('POST', '/v1/svc/licenses/request', requestBody(boxId), {
      'idempotency-key': key,
    });
    expect(retried.status).toBe(201);
    const replayed = await licensee.call('POST', '/v1/svc/licenses/request', requestBody(boxId), {
      'idempotency-key': key,
    });
    expect(replayed.status).toBe(201);
    expect(replayed.body.data.id).toBe(retried.body.data.id);
    const { rows } = await h.running.db.query<{ n: number }>(
      'SELECT count(*)::int AS n FROM license_requests WHERE box_id = $1',
      [boxId],
    );
    expect(rows[0]?.n).toBe(1);
  });

  it('when the registry says the box does not exist, then the request answers 404', async () => {
    const reply = await h.platform().call('POST', '/v1/svc/licenses/request', requestBody(newId('box')));
    expect(reply.status).toBe(404);
    expect(reply.body.error.code).toBe('NOT_FOUND');
  });

  it('when the registry cannot be reached, then the request answers 503 SERVICE_UNAVAILABLE with Retry-After, never 404', async () => {
    const { boxId } = registryBox(1);
    await registry.stop();
    const licensee = internalClient(h.running.url, JWT_SECRET, platformClaims());
    const reply = await licensee.call('POST', '/v1/svc/licenses/request', requestBody(boxId));
    expect(reply.status).toBe(503);
    expect(reply.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(reply.headers.get('retry-after')).not.toBeNull();
  });
});
