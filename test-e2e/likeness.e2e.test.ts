import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { startTestCluster, uniqueSuffix, waitFor, type TestCluster } from '@svc/test-kit';
import { unwrap } from '@svc/sdk';
import { newPlatformKey, ROOT, sdkFor } from './helpers';

// docs/spec/contracts.md §15 through the gateway in cluster mode: a protected person's face in
// another picture under another name is matched by face; the claim shows each reference picture's
// face status (detection's event, over RabbitMQ, to the registry); an avatar reported with that
// picture opens a violation by face; and once the owner deletes the claim, the very next check no
// longer matches the face (the registry has detection forget it before it answers). The pictures
// are public-domain White House photographs of the labelled face set (SOURCES.md there): Barack
// Obama's official portrait is the reference, the Oval Office photograph of him and Joe Biden the
// checked picture, and a photograph of both waving a reference with several faces.
const FACES = path.join(ROOT, 'packages/face-engine/test/fixtures/faces');

let cluster: TestCluster;
let images: Server;
let imageBase: string;

beforeAll(async () => {
  const files = new Map<string, Buffer>([
    ['/face.jpg', await readFile(path.join(FACES, 'wh-obama-official-portrait-2012.jpg'))],
    ['/group.jpg', await readFile(path.join(FACES, 'wh-obama-biden-oval-office.jpg'))],
    ['/group-of-others.jpg', await readFile(path.join(FACES, 'wh-obama-biden-waving.jpg'))],
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
    services: ['registry', 'detection', 'licensing', 'enforcement'],
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

    // An avatar reported with that picture under another name opens a violation, by face.
    const { data: avatar } = await unwrap(
      platform.POST('/v1/svc/avatars', {
        body: {
          id: 'face-avatar-1',
          name: 'Studio Avatar 12',
          creatorId: 'creator-1',
          userCount: 10,
          imageUrl: `${imageBase}/group.jpg`,
        },
      }),
    );
    expect(avatar).toMatchObject({ evaluation: 'completed', match: { outcome: 'violation' } });
    expect(avatar.openViolations).toHaveLength(1);

    await unwrap(owner.DELETE('/v1/svc/claims/{id}', { params: { path: { id: claim.id } } }));
    // No wait: the registry answered only after detection forgot the face.
    expect(await check()).toMatchObject({ isClaimed: false, isBoxed: false, action: 'ALLOW' });
  }, 180_000);
});
