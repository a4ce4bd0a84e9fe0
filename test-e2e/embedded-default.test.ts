import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { freePort } from '@svc/test-kit';
import { call, startEmbedded, stopEmbedded as stop } from './helpers';

// `make dev`: every service in one process on PGlite files, printing a ready sandbox key.
describe('embedded default', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-embedded-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('when started, then it prints a working sandbox key, and its data survives a restart', async () => {
    const port = await freePort();
    const first = await startEmbedded(dataDir, port);
    let platformId = '';
    try {
      expect(first.key).toMatch(/^svc_test_[0-9A-Za-z]{32,}$/);
      expect(first.output()).toContain(`http://127.0.0.1:${port}`);
      const res = await call(first.url, first.key, 'GET', '/v1/svc/not-a-route');
      expect(res.status).toBe(404);
      expect(res.headers.get('x-ratelimit-limit')).toBe('60');
      const platform = await call(first.url, first.adminToken, 'POST', '/admin/platforms', {
        name: 'Kept',
        plan: 'basic',
      });
      expect(platform.status).toBe(201);
      platformId = platform.body.data.id;
    } finally {
      expect(await stop(first)).toBe(0);
    }
    // Everything it keeps is under DATA_DIR, detection's index snapshot included (written after
    // the first start's rebuild), never in the directory it was started from.
    expect(existsSync(path.join(dataDir, 'detection-index', 'identity-index.snapshot'))).toBe(true);

    const second = await startEmbedded(dataDir, port);
    try {
      // The same key and token are printed again, and the platform is still there.
      expect(second.key).toBe(first.key);
      expect(second.adminToken).toBe(first.adminToken);
      const kept = await call(second.url, second.adminToken, 'GET', `/admin/platforms/${platformId}`);
      expect(kept.status).toBe(200);
      expect(kept.body.data.name).toBe('Kept');
    } finally {
      await stop(second);
    }
  }, 120_000);

  it('when a licence is requested the moment its box is created, and usage reported the moment the licence is active, then both succeed (read-through in one process)', async () => {
    const port = await freePort();
    const ownDir = mkdtempSync(path.join(tmpdir(), 'svc-embedded-rt-'));
    const embedded = await startEmbedded(ownDir, port).catch((err: unknown) => {
      rmSync(ownDir, { recursive: true, force: true });
      throw err;
    });
    try {
      const { url, key } = embedded;
      const claim = await call(url, key, 'POST', '/v1/svc/claims', {
        name: 'Hedy Lamarr',
        entityType: 'INDIVIDUAL',
        referenceImages: [{ url: 'https://img.example.com/hedy.jpg' }],
      });
      expect(claim.status).toBe(201);
      const claimId = claim.body.data.id as string;
      expect((await call(url, key, 'POST', `/v1/svc/test-helpers/claims/${claimId}/verify`, {})).status).toBe(
        200,
      );
      const box = await call(url, key, 'POST', '/v1/svc/boxes', {
        claimId,
        policy: 'LICENSE',
        policyConfig: { licenseTypes: { personal: { price: 5, autoApprove: true } } },
      });
      expect(box.status).toBe(201);
      // Another platform licenses it (an owner cannot license its own box).
      const licensee = await call(url, embedded.adminToken, 'POST', '/admin/platforms', {
        name: 'Licensee',
        plan: 'basic',
      });
      expect(licensee.status).toBe(201);
      const issued = await call(
        url,
        embedded.adminToken,
        'POST',
        `/admin/platforms/${licensee.body.data.id}/keys`,
        {},
      );
      expect(issued.status).toBe(201);
      const licenseeKey = issued.body.data.key as string;
      const request = await call(url, licenseeKey, 'POST', '/v1/svc/licenses/request', {
        boxId: box.body.data.id,
        tier: 'personal',
        useCase: 'Fan chat avatar',
        acceptGuidelines: true,
      });
      expect(request.status).toBe(201);
      const detail = await call(url, licenseeKey, 'GET', `/v1/svc/licenses/request/${request.body.data.id}`);
      const licenseId = detail.body.data.license.id as string;
      const usage = await call(url, licenseeKey, 'POST', `/v1/svc/licenses/${licenseId}/usage`, {
        period: new Date().toISOString().slice(0, 7),
        metrics: { subscribers: 10 },
        revenue: { subscriptions: 100 },
      });
      expect(usage.status).toBe(201);
    } finally {
      await stop(embedded);
      rmSync(ownDir, { recursive: true, force: true });
    }
  }, 180_000);
});
