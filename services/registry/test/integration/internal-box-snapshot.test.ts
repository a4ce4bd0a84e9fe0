import { snapshotPath } from '@svc/contracts/common';
import { boxSnapshotSchema, INTERNAL_BOX_PATH } from '@svc/contracts/registry';
import { newId } from '@svc/ids';
import { serviceClaims } from '@svc/service-kit';
import { internalClient } from '@svc/test-kit';
import { JWT_SECRET, startRegistryHarness, type RegistryHarness } from '../fixtures/registry-harness';

// ADR 0010: the registry answers a service whose projection misses a box with the box as its
// events describe it and the entity version of its latest event.

let h: RegistryHarness;
beforeAll(async () => {
  h = await startRegistryHarness();
});
afterAll(async () => {
  await h.stop();
});

describe('GET /internal/boxes/:id (read-through for other services)', () => {
  const service = () => internalClient(h.running.url, JWT_SECRET, serviceClaims('licensing', 'sandbox'));

  it('when a service asks for a box just created and updated, then it gets the box at the version of its latest event', async () => {
    const owner = h.platform();
    const claim = await h.verifiedClaim(owner);
    const created = await owner.call('POST', '/v1/svc/boxes', { claimId: claim.id, policy: 'LICENSE' });
    const boxId = created.body.data.id as string;
    await owner.call('PATCH', `/v1/svc/boxes/${boxId}`, { enforcement: 'STRICT' });
    const reply = await service().call('GET', snapshotPath(INTERNAL_BOX_PATH, boxId));
    expect(reply.status).toBe(200);
    const snapshot = boxSnapshotSchema.parse(reply.body).data;
    expect(snapshot.entity).toMatchObject({
      boxId,
      claimId: claim.id,
      policy: 'LICENSE',
      enforcement: 'STRICT',
    });
    const updated = (await h.outbox()).filter(
      (e) => e.type === 'registry.box.updated' && e.data.boxId === boxId,
    );
    expect(updated.at(-1)?.entity).toEqual({ id: boxId, version: 2 });
    expect(snapshot.version).toBe(2);
  });

  it("when a box's events and snapshot are read, then each carries the version of the claim's newest event, so a consumer meeting the box first knows which claim events are older", async () => {
    const owner = h.platform();
    const claim = await h.verifiedClaim(owner);
    const created = await owner.call('POST', '/v1/svc/boxes', { claimId: claim.id, policy: 'LICENSE' });
    const boxId = created.body.data.id as string;
    await owner.call('PATCH', `/v1/svc/claims/${claim.id}`, { variations: ['The Countess'] });
    const events = await h.outbox();
    const claimVersions = events
      .filter((e) => e.type.startsWith('registry.claim.') && e.data.claimId === claim.id)
      .map((e) => e.entity?.version);
    const boxEvents = events.filter((e) => e.type.startsWith('registry.box.') && e.data.boxId === boxId);
    // created (1), verified (2): the box is made under 2; the rename (3) re-publishes the box under 3.
    expect(claimVersions).toEqual([1, 2, 3]);
    expect(boxEvents.map((e) => [e.type, e.data.claimVersion])).toEqual([
      ['registry.box.created', 2],
      ['registry.box.updated', 3],
    ]);
    const snapshot = boxSnapshotSchema.parse(
      (await service().call('GET', snapshotPath(INTERNAL_BOX_PATH, boxId))).body,
    ).data;
    expect(snapshot.entity.claimVersion).toBe(3);
  });

  it('when the box does not exist or was deleted, then 404', async () => {
    expect((await service().call('GET', snapshotPath(INTERNAL_BOX_PATH, newId('box')))).status).toBe(404);
    const owner = h.platform();
    const claim = await h.verifiedClaim(owner);
    const created = await owner.call('POST', '/v1/svc/boxes', { claimId: claim.id, policy: 'LICENSE' });
    await owner.call('DELETE', `/v1/svc/boxes/${created.body.data.id}`);
    expect((await service().call('GET', snapshotPath(INTERNAL_BOX_PATH, created.body.data.id))).status).toBe(
      404,
    );
  });

  it("when a platform's token (minted by the gateway for a key) asks, then 404: the route is not public", async () => {
    const owner = h.platform();
    const claim = await h.verifiedClaim(owner);
    const created = await owner.call('POST', '/v1/svc/boxes', { claimId: claim.id, policy: 'LICENSE' });
    const reply = await owner.call('GET', snapshotPath(INTERNAL_BOX_PATH, created.body.data.id));
    expect(reply.status).toBe(404);
    expect((await h.raw('GET', snapshotPath(INTERNAL_BOX_PATH, created.body.data.id))).status).toBe(401);
  });
});
