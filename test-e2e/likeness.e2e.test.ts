import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import sharp from 'sharp';
import { startTestCluster, uniqueSuffix, waitFor, type TestCluster } from '@svc/test-kit';
import { unwrap } from '@svc/sdk';
import { newPlatformKey, ROOT, sdkFor } from './helpers';

// docs/spec/contracts.md §15 through the gateway in cluster mode: a protected person's face in
// another picture under another name is matched by face; the claim shows each reference picture's
// face status (detection's event, over RabbitMQ, to the registry); and once the owner deletes the
// claim, the very next check no longer matches the face (the registry has detection forget it
// before it answers). The pictures are face-api's demo photos (MIT, shipped in its npm package):
// the reference is one face cut from a group photo, the checked picture the whole group.
const demoDir = path.join(
  path.dirname(
    require.resolve('@vladmandic/face-api/package.json', {
      paths: [path.join(ROOT, 'packages/face-engine')],
    }),
  ),
  'demo',
);
// The left-most face of sample1.jpg (found by the examiner; the picture never changes).
const FACE = { left: 190, top: 250, width: 620, height: 520 };

let cluster: TestCluster;
let images: Server;
let imageBase: string;

beforeAll(async () => {
  const sample = path.join(demoDir, 'sample1.jpg');
  const files = new Map<string, Buffer>([
    ['/face.jpg', await sharp(sample).extract(FACE).jpeg({ quality: 90 }).toBuffer()],
    [
      '/group.jpg',
      await sharp(sample).rotate(3, { background: '#808080' }).resize(1100).jpeg({ quality: 70 }).toBuffer(),
    ],
    ['/group-of-others.jpg', await sharp(path.join(demoDir, 'sample3.jpg')).resize(900).jpeg().toBuffer()],
  ]);
  images = createServer((req, res) => {
    const body = files.get(req.url ?? '');
    if (body === undefined) res.writeHead(404).end();
    else res.writeHead(200, { 'content-type': 'image/jpeg' }).end(body);
  });
  await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
  imageBase = `http://127.0.0.1:${(images.address() as AddressInfo).port}`;
  cluster = await startTestCluster({
    rootDir: ROOT,
    services: ['registry', 'detection', 'licensing'],
    // The face workers share two cores with the whole suite: checks wait longer for faces here.
    env: { SVC_ALLOW_PRIVATE_FETCH: 'true', FACE_CHECK_TIMEOUT_MS: '1500' },
    output: 'silent',
  });
}, 120_000);

afterAll(async () => {
  await cluster?.teardown();
  images?.closeAllConnections();
  await new Promise<void>((resolve) => (images ? images.close(() => resolve()) : resolve()));
});

describe('likeness through the gateway (cluster mode)', () => {
  it('when a protected face appears in another picture, then it is matched by face until the claim is deleted', async () => {
    const gw = cluster.gatewayUrl;
    const owner = sdkFor(gw, await newPlatformKey(cluster, 'Face owner'));
    const platform = sdkFor(gw, await newPlatformKey(cluster, 'Avatar maker'));
    const name = `Imogen Faceworth ${
      uniqueSuffix()
        .replace(/[^a-z]/gi, '')
        .slice(0, 6) || 'Q'
    }`;
    const { data: claim } = await unwrap(
      owner.POST('/v1/svc/claims', {
        body: {
          name,
          entityType: 'INDIVIDUAL',
          referenceImages: [
            { url: `${imageBase}/face.jpg`, isPrimary: true },
            { url: `${imageBase}/group-of-others.jpg` },
          ],
        },
      }),
    );
    await unwrap(
      owner.POST('/v1/svc/test-helpers/claims/{id}/verify', { params: { path: { id: claim.id } }, body: {} }),
    );
    await unwrap(owner.POST('/v1/svc/boxes', { body: { claimId: claim.id, policy: 'BLOCK_ALL' } }));

    // Each picture's face status reaches the claim: one face enrolled, the group photo refused.
    const statuses = await waitFor(
      async () => {
        const { data } = await unwrap(
          owner.GET('/v1/svc/claims/{id}', { params: { path: { id: claim.id } } }),
        );
        const faces = data.referenceImages.map((image) => image.face.status);
        return faces.includes('pending') ? undefined : faces;
      },
      { what: 'the face enrolment on the claim', timeoutMs: 60_000 },
    );
    expect(statuses).toEqual(['enrolled', 'several_faces']);

    const check = () =>
      unwrap(
        platform.POST('/v1/svc/identity/check', {
          body: { name: 'Studio Avatar 12', imageUrl: `${imageBase}/group.jpg` },
        }),
      );
    const matched = await waitFor(
      async () => {
        const res = await check();
        return res.isBoxed ? res : undefined;
      },
      { what: 'the enrolled face in every replica of the index', timeoutMs: 30_000 },
    );
    expect(matched).toMatchObject({
      action: 'BLOCK',
      matchedIdentity: { claimId: claim.id },
      detection: { layer: 6, matchLayer: 'face', classification: 'FACE_MATCH', likeness: { band: 'match' } },
    });

    const second = await unwrap(
      platform.POST('/identity/check', {
        body: { name: 'Studio Avatar 12', image_url: `${imageBase}/group.jpg`, use_type: 'avatar' },
      }),
    );
    expect(second).toMatchObject({ status: 'BOXED', identity_id: claim.id, match_layer: 'face' });

    await unwrap(owner.DELETE('/v1/svc/claims/{id}', { params: { path: { id: claim.id } } }));
    // No wait: the registry answered only after detection forgot the face.
    expect(await check()).toMatchObject({ isClaimed: false, isBoxed: false, action: 'ALLOW' });
  }, 180_000);
});
