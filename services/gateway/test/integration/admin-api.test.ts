import { startHarness, type Harness } from '../fixtures/gateway-harness';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.stop();
});

describe('operator API', () => {
  it('when the operator token is missing or wrong, then 401 UNAUTHORIZED', async () => {
    const missing = await fetch(`${h.url}/admin/platforms`, { method: 'POST' });
    expect(missing.status).toBe(401);
    expect(((await missing.json()) as any).error.code).toBe('UNAUTHORIZED');
    const wrong = await fetch(`${h.url}/admin/platforms`, {
      headers: { authorization: 'Bearer nope-nope-nope-nope' },
    });
    expect(wrong.status).toBe(401);
  });

  it('when a platform is created, then it has a plat_ id, its plan limits and a lowercased domain', async () => {
    const res = await h.admin('POST', '/admin/platforms', {
      name: 'Avatarly',
      plan: 'basic',
      domain: 'Avatarly.IO',
    });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({
      name: 'Avatarly',
      plan: 'basic',
      domain: 'avatarly.io',
      limits: { perMinute: 300, perDay: 50000 },
    });
    expect(res.body.data.id).toMatch(/^plat_[0-9A-Za-z]{16,}$/);
    expect(new Date(res.body.data.createdAt).toISOString()).toBe(res.body.data.createdAt);
  });

  it('when an enterprise platform is created with limits, then they are stored; other plans refuse limits', async () => {
    const ent = await h.admin('POST', '/admin/platforms', {
      name: 'Big',
      plan: 'enterprise',
      limits: { perMinute: 9000, perDay: 9_000_000 },
    });
    expect(ent.body.data.limits).toEqual({ perMinute: 9000, perDay: 9_000_000 });
    const basic = await h.admin('POST', '/admin/platforms', {
      name: 'B',
      plan: 'basic',
      limits: { perMinute: 1, perDay: 1 },
    });
    expect(basic.status).toBe(400);
    expect(basic.body.error.code).toBe('VALIDATION_ERROR');
  });

  it('when the body is invalid, then 400 names each bad field', async () => {
    const res = await h.admin('POST', '/admin/platforms', { name: '', plan: 'gold', domain: 'not a domain' });
    expect(res.status).toBe(400);
    expect(res.body.error.code).toBe('VALIDATION_ERROR');
    const fields = res.body.error.details.fields.map((f: { field: string }) => f.field).sort();
    expect(fields).toEqual(['domain', 'name', 'plan']);
  });

  it('when a key is issued, then the secret is shown once and the platform lists it without secret', async () => {
    const { platformId, key, keyId } = await h.platform('sandbox');
    expect(key).toMatch(/^svc_test_[0-9A-Za-z]{32,}$/);
    expect(keyId).toMatch(/^key_/);
    const detail = await h.admin('GET', `/admin/platforms/${platformId}`);
    expect(detail.status).toBe(200);
    expect(detail.body.data.keys).toEqual([
      expect.objectContaining({ id: keyId, environment: 'sandbox', status: 'active', expiresAt: null }),
    ]);
    expect(JSON.stringify(detail.body)).not.toContain(key);
  });

  it('when a production key is asked for on a sandbox deployment, then it is a svc_live_ key', async () => {
    const created = await h.admin('POST', '/admin/platforms', { name: 'P', plan: 'sandbox' });
    const issued = await h.admin('POST', `/admin/platforms/${created.body.data.id}/keys`, {
      environment: 'production',
    });
    expect(issued.status).toBe(201);
    expect(issued.body.data.key).toMatch(/^svc_live_/);
    expect(issued.body.data.environment).toBe('production');
  });

  it('when a key is rotated, then the old key expires in 24 hours and rotating it again is 409', async () => {
    const { keyId } = await h.platform();
    const rotated = await h.admin('POST', `/admin/keys/${keyId}/rotate`);
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.previousKeyId).toBe(keyId);
    expect(rotated.body.data.id).not.toBe(keyId);
    expect(rotated.body.data.key).toMatch(/^svc_test_/);
    expect(rotated.body.data.previousKeyExpiresAt).toBe(
      new Date(h.clock.now().getTime() + 86_400_000).toISOString(),
    );
    const again = await h.admin('POST', `/admin/keys/${keyId}/rotate`);
    expect(again.status).toBe(409);
    expect(again.body.error.code).toBe('INVALID_STATE');
  });

  it('when a key is revoked, then a successor is issued and revoking again is 409', async () => {
    const { keyId } = await h.platform();
    const revoked = await h.admin('POST', `/admin/keys/${keyId}/revoke`);
    expect(revoked.status).toBe(200);
    expect(revoked.body.data).toEqual({
      revokedKeyId: keyId,
      id: expect.stringMatching(/^key_/),
      key: expect.any(String),
    });
    expect((await h.admin('POST', `/admin/keys/${keyId}/revoke`)).status).toBe(409);
  });

  it('when the platform or key does not exist, then 404', async () => {
    expect((await h.admin('GET', '/admin/platforms/plat_doesnotexist00000000')).status).toBe(404);
    expect((await h.admin('POST', '/admin/platforms/plat_doesnotexist00000000/keys', {})).status).toBe(404);
    expect((await h.admin('POST', '/admin/keys/key_doesnotexist000000000/rotate')).status).toBe(404);
  });

  it('when platforms are listed, then newest first with paging meta and bounds enforced', async () => {
    const list = await h.admin('GET', '/admin/platforms?limit=2');
    expect(list.status).toBe(200);
    expect(list.body.data).toHaveLength(2);
    expect(list.body.meta).toEqual({ total: expect.any(Number), limit: 2, offset: 0 });
    expect(list.body.meta.total).toBeGreaterThan(2);
    expect((await h.admin('GET', '/admin/platforms?limit=101')).status).toBe(400);
    expect((await h.admin('GET', '/admin/platforms?offset=-1')).status).toBe(400);
  });
});
