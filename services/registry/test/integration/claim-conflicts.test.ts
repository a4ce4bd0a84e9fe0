import {
  claimBody,
  startRegistryHarness,
  type Client,
  type RegistryHarness,
} from '../fixtures/registry-harness';

// Issue #32, "Creators": a claim on a name another account already protects is flagged, the
// operator sees both claims side by side, the existing owner is told, and a rejection carries a
// reason the claimant sees.

let h: RegistryHarness;
let owner: Client;
let claimant: Client;
let bystander: Client;
let verified: { id: string };
beforeAll(async () => {
  h = await startRegistryHarness();
  owner = h.platform();
  claimant = h.platform();
  bystander = h.platform();
  verified = await h.verifiedClaim(owner, {
    name: 'Ada Lovelace',
    variations: ['Countess of Lovelace'],
  });
});
afterAll(async () => {
  await h.stop();
});

type Conflict = { id: string; ownerPlatformId: string; status: string; referenceImages: unknown[] };

async function reviewOf(id: string) {
  const res = await h.operator().call('GET', '/admin/claims?limit=100');
  expect(res.status).toBe(200);
  return res.body.data.find((claim: { id: string }) => claim.id === id);
}

describe('a claim on a name another account protects', () => {
  it('when another account claims the same name written differently, then the review shows both and flags it', async () => {
    const created = await claimant.call(
      'POST',
      '/v1/svc/claims',
      claimBody({ name: 'ada  LOVELACE', variations: [] }),
    );
    expect(created.status).toBe(201);
    const review = await reviewOf(created.body.data.id);
    expect(review.alreadyProtected).toBe(true);
    expect(review.conflicts.map((c: Conflict) => [c.id, c.ownerPlatformId, c.status])).toEqual([
      [verified.id, owner.platformId, 'verified'],
    ]);
    expect(review.conflicts[0]).toMatchObject({
      name: 'Ada Lovelace',
      variations: ['Countess of Lovelace'],
      verificationTier: 'SILVER',
    });
    expect(review.conflicts[0].referenceImages).toHaveLength(2);
  });

  it('when the new claim names it by a variation of the verified one, then the owner is told once, by an event addressed to them', async () => {
    const created = await claimant.call(
      'POST',
      '/v1/svc/claims',
      claimBody({ name: 'Augusta King', variations: ['Countess of Lovelace.'] }),
    );
    const id = created.body.data.id;
    const told = (await h.outbox()).filter(
      (e) => e.type === 'registry.claim_conflict.detected' && e.data.claimId === id,
    );
    expect(told).toHaveLength(1);
    expect(told[0]!.platformId).toBe(owner.platformId);
    expect(told[0]!.data).toMatchObject({
      name: 'Augusta King',
      claimantPlatformId: claimant.platformId,
      existingClaimId: verified.id,
      existingName: 'Ada Lovelace',
      existingOwnerPlatformId: owner.platformId,
    });
    expect((await reviewOf(id)).alreadyProtected).toBe(true);
  });

  it('when two accounts claim a name nobody has verified, then each sees the other pending and no owner is told', async () => {
    const first = await claimant.call(
      'POST',
      '/v1/svc/claims',
      claimBody({ name: 'Grace Hopper', variations: [] }),
    );
    const second = await bystander.call(
      'POST',
      '/v1/svc/claims',
      claimBody({ name: 'Grace-Hopper', variations: [] }),
    );
    const review = await reviewOf(second.body.data.id);
    expect(review.alreadyProtected).toBe(false);
    expect(review.conflicts.map((c: Conflict) => [c.id, c.status])).toEqual([
      [first.body.data.id, 'pending'],
    ]);
    expect((await reviewOf(first.body.data.id)).conflicts.map((c: Conflict) => c.id)).toEqual([
      second.body.data.id,
    ]);
    const told = (await h.outbox()).filter(
      (e) =>
        e.type === 'registry.claim_conflict.detected' &&
        [first.body.data.id, second.body.data.id].includes(e.data.claimId as string),
    );
    expect(told).toEqual([]);
  });

  it('when the same account claims its own name again, then its own claim is no conflict; an unrelated name meets none', async () => {
    const again = await owner.call(
      'POST',
      '/v1/svc/claims',
      claimBody({ name: 'Ada Lovelace', variations: [] }),
    );
    const mine = await reviewOf(again.body.data.id);
    expect(mine.alreadyProtected).toBe(false);
    // Only the other account's pending claims of the name stand beside it.
    expect(mine.conflicts.map((c: Conflict) => c.ownerPlatformId)).toEqual([claimant.platformId]);
    const unrelated = await bystander.call(
      'POST',
      '/v1/svc/claims',
      claimBody({ name: 'Mary Somerville', variations: [] }),
    );
    const review = await reviewOf(unrelated.body.data.id);
    expect(review.conflicts).toEqual([]);
    expect(review.alreadyProtected).toBe(false);
  });

  it('when the operator rejects a claim with a reason, then its owner reads the reason and nobody else does', async () => {
    const created = await claimant.call(
      'POST',
      '/v1/svc/claims',
      claimBody({ name: 'A. Lovelace', variations: [] }),
    );
    const id = created.body.data.id;
    const reason = 'Ada Lovelace is already verified for another account; send proof of your own.';
    const rejected = await h.operator().call('POST', `/admin/claims/${id}/reject`, { reason });
    expect(rejected.status).toBe(200);

    const seen = await claimant.call('GET', `/v1/svc/claims/${id}`);
    expect(seen.body.data).toMatchObject({ status: 'rejected', rejectionReason: reason });
    const other = await bystander.call('GET', `/v1/svc/claims/${id}`);
    expect(JSON.stringify(other.body)).not.toContain(reason);
    // A rejected claim no longer stands beside the others.
    const review = await reviewOf(
      (await claimant.call('POST', '/v1/svc/claims', claimBody({ variations: [] }))).body.data.id,
    );
    expect(review.conflicts.map((c: Conflict) => c.id)).not.toContain(id);
  });
});

describe('searching claims and boxes by name', () => {
  it('when a list is searched, then only names or variations containing the words come back, case, dots and hyphens aside; LIKE wildcards are taken literally', async () => {
    const searcher = h.platform();
    const ada = await h.verifiedClaim(searcher, { name: 'Ada King-Noel', variations: ['A.K. Noel'] });
    await searcher.call('POST', '/v1/svc/claims', claimBody({ name: 'Mary Shelley', variations: [] }));
    await searcher.call('POST', '/v1/svc/claims', claimBody({ name: '100% Real_Person', variations: [] }));
    const names = async (path: string) =>
      (await searcher.call('GET', path)).body.data.map((claim: { name: string }) => claim.name).sort();
    expect(await names('/v1/svc/claims?owner=me&q=king%20noel')).toEqual(['Ada King-Noel']);
    expect(await names('/v1/svc/claims?owner=me&q=ak%20noel')).toEqual(['Ada King-Noel']);
    expect(await names('/v1/svc/claims?owner=me&q=SHELL')).toEqual(['Mary Shelley']);
    expect(await names('/v1/svc/claims?owner=me&q=%25')).toEqual(['100% Real_Person']);
    expect(await names('/v1/svc/claims?owner=me&q=nobody')).toEqual([]);
    expect((await searcher.call('GET', '/v1/svc/claims?q=')).status).toBe(400);
    expect((await searcher.call('GET', '/v1/svc/claims?q=%00')).status).toBe(400);
    expect((await searcher.call('GET', '/v1/svc/boxes?q=%00')).status).toBe(400);

    const box = await searcher.call('POST', '/v1/svc/boxes', { claimId: ada.id, policy: 'BLOCK_ALL' });
    expect(box.status).toBe(201);
    const boxes = await searcher.call('GET', '/v1/svc/boxes?owner=me&q=noel');
    expect(boxes.body.data.map((b: { id: string }) => b.id)).toEqual([box.body.data.id]);
    expect((await searcher.call('GET', '/v1/svc/boxes?owner=me&q=shelley')).body.meta.total).toBe(0);

    const review = await h.operator().call('GET', '/admin/claims?q=shelley');
    expect(review.body.data.map((claim: { name: string }) => claim.name)).toEqual(['Mary Shelley']);
  });
});
