import { REFERENCED_UPLOADS_PATH } from '@svc/contracts/registry';
import { serviceClaims } from '@svc/service-kit';
import { internalClient } from '@svc/test-kit';
import { JWT_SECRET, startRegistryHarness, type RegistryHarness } from '../fixtures/registry-harness';

// docs/spec/contracts.md §17: the gateway purges dashboard uploads no claim names any more; it asks
// the registry, which owns the claims, which of a platform's uploads are still reference images.

let h: RegistryHarness;
beforeAll(async () => {
  h = await startRegistryHarness();
});
afterAll(async () => {
  await h.stop();
});

const uploadId = (c: string) => c.repeat(24);

describe(`POST ${REFERENCED_UPLOADS_PATH} (the gateway's upload purge)`, () => {
  const gateway = () => internalClient(h.running.url, JWT_SECRET, serviceClaims('gateway', 'sandbox'));

  it('when a claim names an upload, then it is referenced until the claim is deleted; others and other platforms’ are not', async () => {
    const owner = h.platform();
    const created = await owner.call('POST', '/v1/svc/claims', {
      name: 'Upload Owner',
      entityType: 'INDIVIDUAL',
      referenceImages: [
        { url: `https://gw.example/dashboard/uploads/${uploadId('a')}`, isPrimary: true },
        { url: `http://127.0.0.1:8080/dashboard/uploads/${uploadId('b')}` },
        { url: 'https://elsewhere.example/picture.jpg' },
      ],
    });
    expect(created.status).toBe(201);
    const ask = (platformId: string) =>
      gateway().call('POST', REFERENCED_UPLOADS_PATH, {
        platformId,
        uploadIds: [uploadId('a'), uploadId('b'), uploadId('c')],
      });
    const mine = await ask(owner.platformId);
    expect(mine.status).toBe(200);
    expect([...mine.body.data.referenced].sort()).toEqual([uploadId('a'), uploadId('b')]);
    expect((await ask(h.platform().platformId)).body.data.referenced).toEqual([]);

    await owner.call('DELETE', `/v1/svc/claims/${created.body.data.id}`);
    expect((await ask(owner.platformId)).body.data.referenced).toEqual([]);
  });

  it('when a platform’s token asks, then 404; when the ids are malformed, then 400', async () => {
    const owner = h.platform();
    const body = { platformId: owner.platformId, uploadIds: [uploadId('a')] };
    expect((await owner.call('POST', REFERENCED_UPLOADS_PATH, body)).status).toBe(404);
    const bad = await gateway().call('POST', REFERENCED_UPLOADS_PATH, {
      platformId: 'x',
      uploadIds: ['../etc'],
    });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe('VALIDATION_ERROR');
  });
});
