import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { startTestCluster, uniqueSuffix, waitFor, type TestCluster } from '@svc/test-kit';
import { isApiError, rateLimitOf, unwrap, type ApiError } from '@svc/sdk';
import { newPlatformKey, ROOT, sdkFor } from './helpers';

// The identity check through the gateway in cluster mode: detection learns verified claims and
// boxes from registry's events over RabbitMQ, fingerprints the reference image from a local
// server (private fetches allowed for the test), and answers both path families.
let cluster: TestCluster;
let images: Server;
let imageBase: string;

async function picture(seed: number): Promise<Buffer> {
  const shapes = Array.from({ length: 12 }, (_, i) => {
    const v = (seed * 97 + i * 131) % 251;
    return `<circle cx="${(v * 7) % 256}" cy="${(v * 13) % 256}" r="${20 + (v % 60)}" fill="rgb(${v},${(v * 3) % 255},${(v * 5) % 255})"/>`;
  });
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="256" height="256"><rect width="100%" height="100%" fill="rgb(${(seed * 41) % 255},90,140)"/>${shapes.join('')}</svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

beforeAll(async () => {
  const files = new Map<string, Buffer>([
    ['/reference.png', await picture(7)],
    ['/avatar.png', await picture(99)],
  ]);
  images = createServer((req, res) => {
    const body = files.get(req.url ?? '');
    if (body === undefined) res.writeHead(404).end();
    else res.writeHead(200, { 'content-type': 'image/png' }).end(body);
  });
  await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
  imageBase = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
  cluster = await startTestCluster({
    rootDir: ROOT,
    services: ['registry', 'detection', 'licensing'],
    env: { SVC_ALLOW_PRIVATE_FETCH: 'true' },
    output: 'silent',
  });
}, 90_000);

afterAll(async () => {
  await cluster?.teardown();
  images?.closeAllConnections();
  await new Promise<void>((resolve) => (images ? images.close(() => resolve()) : resolve()));
});

async function newKey(name: string): Promise<string> {
  return newPlatformKey(cluster, name);
}

describe('the identity check through the gateway (cluster mode)', () => {
  it('when a claim is verified and boxed, then platforms find it by name, misspelling and picture, in both families', async () => {
    const gw = cluster.gatewayUrl;
    const owner = sdkFor(gw, await newKey('Identity owner'));
    const platform = sdkFor(gw, await newKey('Avatar platform'));
    const name = `Octavia Brightwater ${
      uniqueSuffix()
        .replace(/[^a-z]/gi, '')
        .slice(0, 6) || 'Q'
    }`;
    const avatarUrl = `${imageBase}/avatar.png`;
    const check = (name: string, imageUrl = avatarUrl) =>
      unwrap(platform.POST('/v1/svc/identity/check', { body: { name, imageUrl } }));

    const { data: claim } = await unwrap(
      owner.POST('/v1/svc/claims', {
        body: {
          name,
          variations: ['Tavi Brightwater'],
          entityType: 'INDIVIDUAL',
          referenceImages: [{ url: `${imageBase}/reference.png`, isPrimary: true }],
        },
      }),
    );
    const claimId = claim.id;

    // Not verified yet: nobody is protected by a pending claim.
    expect(await check(name)).toMatchObject({ isClaimed: false, isBoxed: false, action: 'ALLOW' });

    await unwrap(
      owner.POST('/v1/svc/test-helpers/claims/{id}/verify', { params: { path: { id: claimId } }, body: {} }),
    );
    const claimed = await waitFor(
      async () => {
        const res = await check(name);
        return res.isClaimed ? res : undefined;
      },
      { what: 'the verified claim in detection', timeoutMs: 10_000 },
    );
    expect(claimed).toMatchObject({ isBoxed: false, action: 'ALLOW', matchedIdentity: { claimId } });

    const { data: box } = await unwrap(
      owner.POST('/v1/svc/boxes', { body: { claimId, policy: 'BLOCK_ALL', enforcement: 'STRICT' } }),
    );
    const respaced = name.toUpperCase().replace('OCTAVIA', 'OCTAVIA  ');
    const boxed = await waitFor(
      async () => {
        const res = await check(respaced);
        return res.isBoxed ? res : undefined;
      },
      { what: 'the box in detection', timeoutMs: 10_000 },
    );
    expect(boxed).toMatchObject({ policy: 'BLOCK_ALL', action: 'BLOCK', matchedIdentity: { boxId: box.id } });
    const raw = await platform.POST('/v1/svc/identity/check', {
      body: { name: respaced, imageUrl: avatarUrl },
    });
    expect(rateLimitOf(raw.response)).toMatchObject({
      limit: expect.any(Number),
      remaining: expect.any(Number),
    });

    expect(await check(name.replace('Brightwater', 'Brigthwater'))).toMatchObject({
      isBoxed: true,
      action: 'BLOCK',
      detection: { layer: 3, classification: 'FUZZY_MATCH' },
    });

    // The reference picture under another name: matched once detection has fingerprinted it.
    const byPicture = await waitFor(
      async () => {
        const res = await check('Completely Different', `${imageBase}/reference.png`);
        return res.isBoxed ? res : undefined;
      },
      { what: 'the reference image fingerprint', timeoutMs: 15_000 },
    );
    expect(byPicture.detection).toMatchObject({ layer: 5, classification: 'IMAGE_MATCH' });

    const batch = await unwrap(
      platform.POST('/v1/svc/identity/check/batch', {
        body: {
          identities: [
            { id: 'mine-1', name: 'Tavi Brightwater', imageUrl: avatarUrl },
            { id: 'mine-2', name: 'Someone Unknown', imageUrl: avatarUrl },
          ],
        },
      }),
    );
    expect(batch.results.map((r) => [r.id, r.action])).toEqual([
      ['mine-1', 'BLOCK'],
      ['mine-2', 'ALLOW'],
    ]);
    expect(batch.meta).toMatchObject({ total: 2, boxed: 1, unprotected: 1 });

    const second = await unwrap(
      platform.POST('/identity/check', { body: { name, image_url: avatarUrl, use_type: 'avatar' } }),
    );
    expect(second).toMatchObject({
      status: 'BOXED',
      identity_id: claimId,
      restrictions: { policy: 'BLOCK_ALL', action: 'BLOCK' },
    });
    const status = await unwrap(platform.GET('/identity/status/{id}', { params: { path: { id: claimId } } }));
    expect(status).toMatchObject({ identity_id: claimId, status: 'BOXED', policy: 'BLOCK_ALL' });
  }, 60_000);

  it('when a request is invalid, then the gateway answers with the interface codes', async () => {
    const gw = cluster.gatewayUrl;
    const platform = sdkFor(gw, await newKey('Careless platform'));
    const avatarUrl = `${imageBase}/avatar.png`;
    const tooMany = await platform.POST('/v1/svc/identity/check/batch', {
      body: {
        identities: Array.from({ length: 101 }, (_, i) => ({ name: `Person ${i}`, imageUrl: avatarUrl })),
      },
    });
    expect([tooMany.response.status, tooMany.error?.error.code]).toEqual([400, 'BATCH_TOO_LARGE']);
    const badName = await platform.POST('/v1/svc/identity/check', {
      body: { name: '  ', imageUrl: avatarUrl },
    });
    expect([badName.response.status, badName.error?.error.code]).toEqual([400, 'INVALID_NAME']);
    const badUrl = await unwrap(
      platform.POST('/v1/svc/identity/check', { body: { name: 'Ada', imageUrl: 'file:///etc/passwd' } }),
    ).catch((err: unknown) => err);
    expect(isApiError(badUrl, 'INVALID_IMAGE_URL')).toBe(true);
    expect((badUrl as ApiError).status).toBe(422);
    const noKey = await sdkFor(gw, undefined).POST('/v1/svc/identity/check', {
      body: { name: 'Ada', imageUrl: avatarUrl },
    });
    expect([noKey.response.status, noKey.error?.error.code]).toEqual([401, 'UNAUTHORIZED']);
    expect(rateLimitOf(noKey.response)).toBeUndefined();
  });
});
