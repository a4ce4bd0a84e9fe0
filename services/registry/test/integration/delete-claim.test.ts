import {
  claimBody,
  startRegistryHarness,
  type Client,
  type RegistryHarness,
} from '../fixtures/registry-harness';

let h: RegistryHarness;
let owner: Client;
beforeAll(async () => {
  h = await startRegistryHarness();
  owner = h.platform();
});
afterAll(async () => {
  await h.stop();
});

describe('DELETE /v1/svc/claims/:id', () => {
  it('when the owner deletes a boxed claim, then both are gone and claim.deleted and box.deleted are published', async () => {
    const claim = await h.verifiedClaim(owner);
    const box = (await owner.call('POST', '/v1/svc/boxes', { claimId: claim.id, policy: 'OPEN' })).body.data;
    const res = await owner.call('DELETE', `/v1/svc/claims/${claim.id}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toEqual({ id: claim.id, deleted: true, deletedAt: '2026-11-22T10:00:00.000Z' });
    expect((await owner.call('GET', `/v1/svc/claims/${claim.id}`)).status).toBe(404);
    expect((await owner.call('GET', `/v1/svc/boxes/${box.id}`)).status).toBe(404);
    const deleted = await h.waitForEvent('registry.claim.deleted', (e) => e.data.claimId === claim.id);
    expect(deleted.data.boxId).toBe(box.id);
    await h.waitForEvent('registry.box.deleted', (e) => e.data.boxId === box.id);
  });

  it('when the claim does not exist or was already deleted, then 404', async () => {
    const id = (await owner.call('POST', '/v1/svc/claims', claimBody())).body.data.id;
    expect((await owner.call('DELETE', `/v1/svc/claims/${id}`)).status).toBe(200);
    expect((await owner.call('DELETE', `/v1/svc/claims/${id}`)).status).toBe(404);
  });

  it('when another platform deletes a verified claim, then 403; a pending one, then 404; the claim stays', async () => {
    const verified = await h.verifiedClaim(owner);
    const pending = (await owner.call('POST', '/v1/svc/claims', claimBody())).body.data;
    const intruder = h.platform();
    expect((await intruder.call('DELETE', `/v1/svc/claims/${verified.id}`)).status).toBe(403);
    expect((await intruder.call('DELETE', `/v1/svc/claims/${pending.id}`)).status).toBe(404);
    expect((await owner.call('GET', `/v1/svc/claims/${verified.id}`)).status).toBe(200);
    expect((await owner.call('GET', `/v1/svc/claims/${pending.id}`)).status).toBe(200);
  });
});
