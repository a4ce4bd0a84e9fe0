import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { startTestCluster, uniqueSuffix, waitFor, type TestCluster } from '@svc/test-kit';
import { call, newPlatformKey, ROOT } from './helpers';

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
    const owner = await newKey('Identity owner');
    const platform = await newKey('Avatar platform');
    const name = `Octavia Brightwater ${
      uniqueSuffix()
        .replace(/[^a-z]/gi, '')
        .slice(0, 6) || 'Q'
    }`;
    const avatarUrl = `${imageBase}/avatar.png`;
    const check = (body: Record<string, unknown>) =>
      call(gw, platform, 'POST', '/v1/svc/identity/check', body);

    const claim = await call(gw, owner, 'POST', '/v1/svc/claims', {
      name,
      variations: ['Tavi Brightwater'],
      entityType: 'INDIVIDUAL',
      referenceImages: [{ url: `${imageBase}/reference.png`, isPrimary: true }],
    });
    expect(claim.status).toBe(201);
    const claimId = claim.body.data.id as string;

    // Not verified yet: nobody is protected by a pending claim.
    const before = await check({ name, imageUrl: avatarUrl });
    expect(before.status).toBe(200);
    expect(before.body).toMatchObject({ isClaimed: false, isBoxed: false, action: 'ALLOW' });

    expect((await call(gw, owner, 'POST', `/v1/svc/test-helpers/claims/${claimId}/verify`, {})).status).toBe(
      200,
    );
    const claimed = await waitFor(
      async () => {
        const res = await check({ name, imageUrl: avatarUrl });
        return res.body.isClaimed === true ? res : undefined;
      },
      { what: 'the verified claim in detection', timeoutMs: 10_000 },
    );
    expect(claimed.body).toMatchObject({ isBoxed: false, action: 'ALLOW', matchedIdentity: { claimId } });

    const box = await call(gw, owner, 'POST', '/v1/svc/boxes', {
      claimId,
      policy: 'BLOCK_ALL',
      enforcement: 'STRICT',
    });
    expect(box.status).toBe(201);
    const boxed = await waitFor(
      async () => {
        const res = await check({
          name: name.toUpperCase().replace('OCTAVIA', 'OCTAVIA  '),
          imageUrl: avatarUrl,
        });
        return res.body.isBoxed === true ? res : undefined;
      },
      { what: 'the box in detection', timeoutMs: 10_000 },
    );
    expect(boxed.status).toBe(200);
    expect(boxed.body).toMatchObject({
      policy: 'BLOCK_ALL',
      action: 'BLOCK',
      matchedIdentity: { boxId: box.body.data.id },
    });
    expect(boxed.headers.get('x-ratelimit-limit')).not.toBeNull();

    const misspelled = await check({ name: name.replace('Brightwater', 'Brigthwater'), imageUrl: avatarUrl });
    expect(misspelled.body).toMatchObject({
      isBoxed: true,
      action: 'BLOCK',
      detection: { layer: 3, classification: 'FUZZY_MATCH' },
    });

    // The reference picture under another name: matched once detection has fingerprinted it.
    const byPicture = await waitFor(
      async () => {
        const res = await check({ name: 'Completely Different', imageUrl: `${imageBase}/reference.png` });
        return res.body.isBoxed === true ? res : undefined;
      },
      { what: 'the reference image fingerprint', timeoutMs: 15_000 },
    );
    expect(byPicture.body.detection).toMatchObject({ layer: 5, classification: 'IMAGE_MATCH' });

    const batch = await call(gw, platform, 'POST', '/v1/svc/identity/check/batch', {
      identities: [
        { id: 'mine-1', name: 'Tavi Brightwater', imageUrl: avatarUrl },
        { id: 'mine-2', name: 'Someone Unknown', imageUrl: avatarUrl },
      ],
    });
    expect(batch.status).toBe(200);
    expect(batch.body.results.map((r: { id: string; action: string }) => [r.id, r.action])).toEqual([
      ['mine-1', 'BLOCK'],
      ['mine-2', 'ALLOW'],
    ]);
    expect(batch.body.meta).toMatchObject({ total: 2, boxed: 1, unprotected: 1 });

    const second = await call(gw, platform, 'POST', '/identity/check', {
      name,
      image_url: avatarUrl,
      use_type: 'avatar',
    });
    expect(second.body).toMatchObject({
      status: 'BOXED',
      identity_id: claimId,
      restrictions: { policy: 'BLOCK_ALL', action: 'BLOCK' },
    });
    const status = await call(gw, platform, 'GET', `/identity/status/${claimId}`);
    expect(status.body).toMatchObject({ identity_id: claimId, status: 'BOXED', policy: 'BLOCK_ALL' });
  }, 60_000);

  it('when a request is invalid, then the gateway answers with the interface codes', async () => {
    const gw = cluster.gatewayUrl;
    const platform = await newKey('Careless platform');
    const avatarUrl = `${imageBase}/avatar.png`;
    const tooMany = await call(gw, platform, 'POST', '/v1/svc/identity/check/batch', {
      identities: Array.from({ length: 101 }, (_, i) => ({ name: `Person ${i}`, imageUrl: avatarUrl })),
    });
    expect(tooMany.status).toBe(400);
    expect(tooMany.body.error.code).toBe('BATCH_TOO_LARGE');
    const badName = await call(gw, platform, 'POST', '/v1/svc/identity/check', {
      name: '  ',
      imageUrl: avatarUrl,
    });
    expect(badName.status).toBe(400);
    expect(badName.body.error.code).toBe('INVALID_NAME');
    const badUrl = await call(gw, platform, 'POST', '/v1/svc/identity/check', {
      name: 'Ada',
      imageUrl: 'file:///etc/passwd',
    });
    expect(badUrl.status).toBe(422);
    expect(badUrl.body.error.code).toBe('INVALID_IMAGE_URL');
    const noKey = await call(gw, undefined, 'POST', '/v1/svc/identity/check', {
      name: 'Ada',
      imageUrl: avatarUrl,
    });
    expect(noKey.status).toBe(401);
  });
});
