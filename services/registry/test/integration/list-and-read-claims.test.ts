import {
  claimBody,
  startRegistryHarness,
  type Client,
  type RegistryHarness,
} from '../fixtures/registry-harness';

let h: RegistryHarness;
let owner: Client;
let other: Client;
let pendingId: string;
let verifiedId: string;
let otherPendingId: string;
let otherVerifiedId: string;

beforeAll(async () => {
  h = await startRegistryHarness();
  owner = h.platform();
  other = h.platform();
  pendingId = (
    await owner.call('POST', '/v1/svc/claims', claimBody({ name: 'Pending One', entityType: 'ESTATE' }))
  ).body.data.id;
  h.clock.advance(1000);
  verifiedId = (await h.verifiedClaim(owner, { name: 'Verified One' })).id;
  h.clock.advance(1000);
  otherPendingId = (await other.call('POST', '/v1/svc/claims', claimBody({ name: 'Hidden Pending' }))).body
    .data.id;
  h.clock.advance(1000);
  otherVerifiedId = (await h.verifiedClaim(other, { name: 'Public Verified', entityType: 'CORPORATION' })).id;
});
afterAll(async () => {
  await h.stop();
});

describe('GET /v1/svc/claims', () => {
  it("when a platform lists, then it sees all of its own claims and others' verified ones, newest first, in list form", async () => {
    const res = await owner.call('GET', '/v1/svc/claims');
    expect(res.status).toBe(200);
    expect(res.body.meta).toEqual({ total: 3, limit: 20, offset: 0 });
    expect(res.body.data.map((c: { id: string }) => c.id)).toEqual([otherVerifiedId, verifiedId, pendingId]);
    const item = res.body.data[1];
    expect(Object.keys(item).sort()).toEqual(
      [
        'createdAt',
        'entityType',
        'hasBox',
        'id',
        'name',
        'status',
        'variations',
        'verificationTier',
        'verifiedAt',
      ].sort(),
    );
    expect(res.body.data.map((c: { id: string }) => c.id)).not.toContain(otherPendingId);
  });

  it("when filtered by owner=me (the dashboard's list), then only the caller's own claims, pending included", async () => {
    const mine = await owner.call('GET', '/v1/svc/claims?owner=me');
    expect(mine.body.meta.total).toBe(2);
    expect(mine.body.data.map((c: { id: string }) => c.id)).toEqual([verifiedId, pendingId]);
    const boxes = await other.call('GET', '/v1/svc/boxes?owner=me');
    expect(boxes.body).toMatchObject({ data: [], meta: { total: 0 } });
    expect((await owner.call('GET', '/v1/svc/claims?owner=you')).status).toBe(400);
  });

  it('when filtered by status and entityType, then only matches count in meta.total', async () => {
    const byStatus = await owner.call('GET', '/v1/svc/claims?status=verified');
    expect(byStatus.body.meta.total).toBe(2);
    const byType = await owner.call('GET', '/v1/svc/claims?entityType=ESTATE');
    expect(byType.body.data.map((c: { id: string }) => c.id)).toEqual([pendingId]);
    const both = await other.call('GET', '/v1/svc/claims?status=pending&entityType=INDIVIDUAL');
    expect(both.body.data.map((c: { id: string }) => c.id)).toEqual([otherPendingId]);
  });

  it('when paged, then limit and offset apply and meta.total counts every match', async () => {
    const res = await owner.call('GET', '/v1/svc/claims?limit=1&offset=1');
    expect(res.body.meta).toEqual({ total: 3, limit: 1, offset: 1 });
    expect(res.body.data.map((c: { id: string }) => c.id)).toEqual([verifiedId]);
  });

  it.each(['limit=0', 'limit=101', 'offset=-1', 'limit=abc', 'status=approved', 'entityType=ROBOT'])(
    'when the query has %s, then 400 VALIDATION_ERROR',
    async (query) => {
      const res = await owner.call('GET', `/v1/svc/claims?${query}`);
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe('VALIDATION_ERROR');
    },
  );
});

describe('GET /v1/svc/claims/:id', () => {
  it('when the owner reads a verified claim, then the detail form has verification, proofs and images', async () => {
    const res = await owner.call('GET', `/v1/svc/claims/${verifiedId}`);
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({
      id: verifiedId,
      status: 'verified',
      verificationTier: 'SILVER',
      verifiedAt: expect.any(String),
      verification: { method: 'identity_provider', completedAt: expect.any(String), documents: [] },
      proofs: [],
      referenceImages: expect.arrayContaining([expect.objectContaining({ isPrimary: true })]),
    });
  });

  it('when another platform reads a verified claim, then it gets the detail without verification or proofs', async () => {
    const res = await other.call('GET', `/v1/svc/claims/${verifiedId}`);
    expect(res.status).toBe(200);
    expect(res.body.data.referenceImages).toHaveLength(2);
    expect(res.body.data).not.toHaveProperty('verification');
    expect(res.body.data).not.toHaveProperty('proofs');
  });

  it('when another platform reads a pending claim, then 404 as if it did not exist', async () => {
    const res = await other.call('GET', `/v1/svc/claims/${pendingId}`);
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
    expect((await owner.call('GET', '/v1/svc/claims/claim_doesnotexist000000000')).status).toBe(404);
  });
});
