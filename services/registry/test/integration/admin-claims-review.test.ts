import {
  claimBody,
  startRegistryHarness,
  type Client,
  type RegistryHarness,
} from '../fixtures/registry-harness';

let h: RegistryHarness;
let first: Client;
let second: Client;
const ids: string[] = [];
beforeAll(async () => {
  h = await startRegistryHarness();
  first = h.platform();
  second = h.platform();
  // Three claims of two tenants, a minute apart; the second one gets verified.
  for (const [client, name] of [
    [first, 'Ada Lovelace'],
    [second, 'Grace Hopper'],
    [first, 'Mary Somerville'],
  ] as const) {
    ids.push((await client.call('POST', '/v1/svc/claims', claimBody({ name }))).body.data.id);
    h.clock.advance(60_000);
  }
  await h.operator().call('POST', `/admin/claims/${ids[1]}/verify`, { tier: 'SILVER' });
});
afterAll(async () => {
  await h.stop();
});

describe('GET /admin/claims (operator review queue)', () => {
  it('when the operator lists claims, then every tenant’s pending claims come oldest first with their owner, paged', async () => {
    const res = await h.operator().call('GET', '/admin/claims');
    expect(res.status).toBe(200);
    expect(res.body.meta).toEqual({ total: 2, limit: 20, offset: 0 });
    expect(res.body.data.map((c: { id: string }) => c.id)).toEqual([ids[0], ids[2]]);
    expect(res.body.data[0]).toMatchObject({
      name: 'Ada Lovelace',
      status: 'pending',
      verificationTier: 'BRONZE',
      ownerPlatformId: first.platformId,
      referenceImages: expect.arrayContaining([expect.objectContaining({ url: expect.any(String) })]),
    });

    const page = await h.operator().call('GET', '/admin/claims?limit=1&offset=1');
    expect(page.body.meta).toEqual({ total: 2, limit: 1, offset: 1 });
    expect(page.body.data.map((c: { id: string }) => c.id)).toEqual([ids[2]]);
  });

  it('when the operator asks for another status, then only claims of that status come back', async () => {
    const res = await h.operator().call('GET', '/admin/claims?status=verified');
    expect(res.body.meta.total).toBe(1);
    expect(res.body.data[0]).toMatchObject({
      id: ids[1],
      status: 'verified',
      ownerPlatformId: second.platformId,
    });
  });

  it('when the status is not a claim status, then 400 VALIDATION_ERROR names the field', async () => {
    const res = await h.operator().call('GET', '/admin/claims?status=waiting');
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    expect(JSON.stringify(res.body.error.details)).toContain('status');
  });

  it('when a platform (not the operator) asks, then 403 and no other tenant’s pending claim is shown', async () => {
    const res = await first.call('GET', '/admin/claims');
    expect(res.status).toBe(403);
    expect(res.body.error.code).toBe('FORBIDDEN');
    expect(JSON.stringify(res.body)).not.toContain('Grace Hopper');
  });
});
