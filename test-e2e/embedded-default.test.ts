import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { stablePort } from '@svc/test-kit';
import { unwrap } from '@svc/sdk';
import { call, expectStatus, sdkFor, startEmbedded, stopEmbedded as stop } from './helpers';

// `make dev`: every service in one process on PGlite files, printing a ready sandbox key. Calls go
// through @svc/sdk, but for the unknown route: a path the OpenAPI document does not have, which the
// typed client cannot name.
describe('embedded default', () => {
  const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-embedded-'));
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('when started, then it prints a working sandbox key, and its data survives a restart', async () => {
    const port = await stablePort();
    const first = await startEmbedded(dataDir, port);
    let platformId = '';
    try {
      expect(first.key).toMatch(/^svc_test_[0-9A-Za-z]{32,}$/);
      expect(first.output()).toContain(`http://127.0.0.1:${port}`);
      const res = await call(first.url, first.key, 'GET', '/v1/svc/not-a-route');
      expect(res.status).toBe(404);
      expect(res.headers.get('x-ratelimit-limit')).toBe('60');
      const platform = await expectStatus(
        201,
        sdkFor(first.url, first.adminToken).POST('/admin/platforms', {
          body: { name: 'Kept', plan: 'basic' },
        }),
      );
      platformId = platform.data.id;
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
      const kept = await expectStatus(
        200,
        sdkFor(second.url, second.adminToken).GET('/admin/platforms/{id}', {
          params: { path: { id: platformId } },
        }),
      );
      expect(kept.data.name).toBe('Kept');
    } finally {
      await stop(second);
    }
  }, 400_000);

  it('when a licence is requested the moment its box is created, and usage reported the moment the licence is active, then both succeed (read-through in one process)', async () => {
    const port = await stablePort();
    const ownDir = mkdtempSync(path.join(tmpdir(), 'svc-embedded-rt-'));
    const embedded = await startEmbedded(ownDir, port).catch((err: unknown) => {
      rmSync(ownDir, { recursive: true, force: true });
      throw err;
    });
    try {
      const owner = sdkFor(embedded.url, embedded.key);
      const operator = sdkFor(embedded.url, embedded.adminToken);
      const { data: claim } = await expectStatus(
        201,
        owner.POST('/v1/svc/claims', {
          body: {
            name: 'Hedy Lamarr',
            entityType: 'INDIVIDUAL',
            referenceImages: [{ url: 'https://img.example.com/hedy.jpg' }],
          },
        }),
      );
      await expectStatus(
        200,
        owner.POST('/v1/svc/test-helpers/claims/{id}/verify', {
          params: { path: { id: claim.id } },
          body: {},
        }),
      );
      const { data: box } = await expectStatus(
        201,
        owner.POST('/v1/svc/boxes', {
          body: {
            claimId: claim.id,
            policy: 'LICENSE',
            policyConfig: { licenseTypes: { personal: { price: 5, autoApprove: true } } },
          },
        }),
      );
      // Another platform licenses it (an owner cannot license its own box).
      const { data: platform } = await expectStatus(
        201,
        operator.POST('/admin/platforms', { body: { name: 'Licensee', plan: 'basic' } }),
      );
      const { data: issued } = await expectStatus(
        201,
        operator.POST('/admin/platforms/{id}/keys', { params: { path: { id: platform.id } }, body: {} }),
      );
      const licensee = sdkFor(embedded.url, issued.key);
      const { data: request } = await expectStatus(
        201,
        licensee.POST('/v1/svc/licenses/request', {
          body: { boxId: box.id, tier: 'personal', useCase: 'Fan chat avatar', acceptGuidelines: true },
        }),
      );
      const { data: detail } = await unwrap(
        licensee.GET('/v1/svc/licenses/request/{id}', { params: { path: { id: request.id } } }),
      );
      const licenseId = detail.license!.id;
      await expectStatus(
        201,
        licensee.POST('/v1/svc/licenses/{id}/usage', {
          params: { path: { id: licenseId } },
          body: {
            period: new Date().toISOString().slice(0, 7),
            metrics: { subscribers: 10 },
            revenue: { subscriptions: 100 },
          },
        }),
      );
    } finally {
      await stop(embedded);
      rmSync(ownDir, { recursive: true, force: true });
    }
  }, 300_000);
});
