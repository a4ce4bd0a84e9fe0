import path from 'node:path';
import { createFaceExaminer } from '@svc/face-engine';
import { createDatabase, type Database } from '@svc/storage';
import sharp from 'sharp';
import {
  startDetectionHarness,
  type Client,
  type DetectionHarness,
  type TestIdentity,
} from '../fixtures/detection-harness';
import { scene, startImageServer, type ImageServer } from '../fixtures/image-server';

// docs/spec/contracts.md §15: a protected person's face in another picture, under another name,
// matches them (layer 6, matchLayer face). The pictures are face-api's demo photos (MIT, shipped in
// the npm package): a reference is one person's face cut out of a group photo, and the checked
// picture is the whole group photo, turned and recompressed, which no fingerprint matches.
const demo = (file: string): string =>
  path.join(path.dirname(require.resolve('@vladmandic/face-api/package.json')), 'demo', file);

async function faceCrop(file: string, which: number): Promise<Buffer> {
  const examiner = createFaceExaminer({ threads: 1 });
  try {
    const bytes = await sharp(demo(file)).jpeg().toBuffer();
    const { faces } = await examiner.examine(bytes);
    const sorted = [...faces].sort((a, b) => a.box.x - b.box.x);
    const face = sorted[which];
    if (face === undefined) throw new Error(`${file} has no face ${which}`);
    const meta = await sharp(bytes).metadata();
    const margin = face.box.width * 0.6;
    const left = Math.max(0, Math.round(face.box.x - margin));
    const top = Math.max(0, Math.round(face.box.y - margin));
    const width = Math.min((meta.width ?? 0) - left, Math.round(face.box.width + 2 * margin));
    const height = Math.min((meta.height ?? 0) - top, Math.round(face.box.height + 2 * margin));
    return await sharp(bytes).extract({ left, top, width, height }).jpeg({ quality: 90 }).toBuffer();
  } finally {
    await examiner.close();
  }
}

describe('faces: the same person in another picture (docs/spec/contracts.md §15)', () => {
  let h: DetectionHarness;
  let images: ImageServer;
  let caller: Client;
  let db: Database;
  let ada: TestIdentity & { boxId: string };
  let grace: TestIdentity & { boxId: string };

  const url = (p: string): string => `${images.base}${p}`;

  beforeAll(async () => {
    // Generous: the workers share two cores with the rest of the suite (the default is 800 ms).
    h = await startDetectionHarness({ FACE_CHECK_TIMEOUT_MS: '20000' });
    db = await createDatabase({ url: h.databaseUrl, maxConnections: 1 });
    images = await startImageServer();
    images.serve('/ada-face.jpg', await faceCrop('sample1.jpg', 0), 'image/jpeg');
    images.serve(
      '/group.jpg',
      await sharp(demo('sample1.jpg'))
        .rotate(4, { background: '#808080' })
        .resize(900)
        .jpeg({ quality: 60 })
        .toBuffer(),
      'image/jpeg',
    );
    images.serve(
      '/other-group.jpg',
      await sharp(demo('sample3.jpg')).resize(1000).jpeg().toBuffer(),
      'image/jpeg',
    );
    images.serve(
      '/stranger.jpg',
      await sharp(demo('sample2.jpg')).resize(800).jpeg().toBuffer(),
      'image/jpeg',
    );
    images.serve('/no-face.png', await scene(3, 400));
    caller = h.platform();
    ada = await h.box(
      await h.verifiedClaim('Ada Lovelace', { imageUrls: [url('/ada-face.jpg'), url('/no-face.png')] }),
      { policy: 'BLOCK_ALL' },
    );
    grace = await h.box(await h.verifiedClaim('Grace Hopper', { imageUrls: [url('/other-group.jpg')] }), {
      policy: 'OPEN',
    });
    await h.running.fingerprintReferenceImages();
    await h.running.refreshIndex();
  }, 120_000);

  afterAll(async () => {
    await db.close();
    await h.stop();
    await images.close();
  });

  const check = async (name: string, imageUrl: string) =>
    (await caller.call('POST', '/v1/svc/identity/check', { name, imageUrl })).body as Record<string, unknown>;

  it('when reference images are enrolled, then each tells whether it shows exactly one face, and says so in an event', async () => {
    const rows = await db.query<{ image_id: string; face_status: string; has_descriptor: boolean }>(
      `SELECT image_id, face_status, face_descriptor IS NOT NULL AS has_descriptor FROM reference_images ORDER BY url`,
    );
    const byUrl = new Map(
      [...ada.referenceImages, ...grace.referenceImages].map((image) => [image.id, image.url]),
    );
    const statuses = Object.fromEntries(
      rows.rows.map((r) => [byUrl.get(r.image_id), [r.face_status, r.has_descriptor]]),
    );
    expect(statuses).toEqual({
      [url('/ada-face.jpg')]: ['enrolled', true],
      [url('/no-face.png')]: ['no_face', false],
      [url('/other-group.jpg')]: ['several_faces', false],
    });
    const outbox = await db.query<{ type: string; payload: unknown }>(
      `SELECT type, payload FROM outbox WHERE type = 'detection.reference_image.enrolled'`,
    );
    expect(
      outbox.rows.map((r) => (r.payload as { data: { faceStatus: string } }).data.faceStatus).sort(),
    ).toEqual(['enrolled', 'no_face', 'several_faces']);
  });

  it('when a protected face appears in another picture under another name, then the claim is matched by face', async () => {
    const result = await check('Studio Avatar 12', url('/group.jpg'));
    expect(result).toMatchObject({
      isBoxed: true,
      isClaimed: true,
      matchedIdentity: { claimId: ada.claimId, boxId: ada.boxId },
      action: 'BLOCK',
      detection: {
        layer: 6,
        matchLayer: 'face',
        classification: 'FACE_MATCH',
        likeness: { band: 'match', faces: expect.any(Number) },
      },
    });
    const detection = result['detection'] as { likeness: { score: number; faces: number } };
    expect(detection.likeness.faces).toBeGreaterThanOrEqual(2);
    expect(detection.likeness.score).toBeGreaterThan(0.5);
  });

  it('when the picture shows only strangers, then the face band is none and the check allows', async () => {
    const result = await check('Studio Avatar 13', url('/stranger.jpg'));
    expect(result).toMatchObject({
      isClaimed: false,
      action: 'ALLOW',
      detection: { layer: 0, likeness: { band: 'none' } },
    });
  });

  it('when the name points to one identity and the face to another, then the most restrictive wins and the other is listed', async () => {
    const result = await check('Grace Hopper', url('/group.jpg'));
    expect(result).toMatchObject({
      matchedIdentity: { claimId: ada.claimId },
      action: 'BLOCK',
      detection: {
        matchLayer: 'face',
        otherMatches: [{ claimId: grace.claimId, boxId: grace.boxId, layer: 'name', score: 1 }],
      },
    });
  });

  it('when the second path family checks the picture, then match_layer and likeness stand beside confidence', async () => {
    const reply = await caller.call('POST', '/identity/check', {
      name: 'Studio Avatar 12',
      image_url: url('/group.jpg'),
      use_type: 'avatar',
    });
    expect(reply.body).toMatchObject({
      status: 'BOXED',
      identity_id: ada.claimId,
      match_layer: 'face',
      likeness: { band: 'match' },
      detection: { layer: 6, classification: 'FACE_MATCH' },
    });
  });

  it('when pictures were checked, then neither they nor their faces are stored or put in an event', async () => {
    await check('Studio Avatar 14', url('/stranger.jpg'));
    const descriptors = await db.query<{ n: string }>(
      `SELECT count(*) AS n FROM reference_images WHERE face_descriptor IS NOT NULL`,
    );
    expect(Number(descriptors.rows[0]?.n)).toBe(1); // Ada's reference face only
    const outbox = await db.query<{ payload: unknown }>(`SELECT payload FROM outbox`);
    const text = JSON.stringify(outbox.rows);
    expect(text).not.toContain('stranger.jpg');
    expect(text).not.toContain('group.jpg');
    expect(text).not.toMatch(/descriptor/i);
  });

  it('when an enrolled face is deleted in the database, then no check matches it, even before the index hears of it', async () => {
    const other = await h.box(
      await h.verifiedClaim('Someone Protected', { imageUrls: [url('/ada-face.jpg?copy')] }),
      { policy: 'BLOCK_ALL' },
    );
    images.serve('/ada-face.jpg?copy', await faceCrop('sample1.jpg', 0), 'image/jpeg');
    await h.running.fingerprintReferenceImages();
    await h.running.refreshIndex();
    // The reference rows go (as the registry's synchronous forget does) without the index being told.
    await db.query(`DELETE FROM reference_images WHERE claim_id = ANY($1)`, [[ada.claimId, other.claimId]]);
    const result = await check('Studio Avatar 15', url('/group.jpg'));
    expect(result).toMatchObject({ isClaimed: false, action: 'ALLOW' });
  });
});

describe('faces not examined in time', () => {
  let h: DetectionHarness;
  let images: ImageServer;

  beforeAll(async () => {
    h = await startDetectionHarness({ FACE_CHECK_TIMEOUT_MS: '1' });
    images = await startImageServer();
    images.serve('/group.jpg', await sharp(demo('sample1.jpg')).resize(1200).jpeg().toBuffer(), 'image/jpeg');
  });

  afterAll(async () => {
    await h.stop();
    await images.close();
  });

  it('when the faces cannot be examined within the check’s time, then the band is unavailable and names still decide', async () => {
    const reply = await h
      .platform()
      .call('POST', '/v1/svc/identity/check', { name: 'Nobody Known', imageUrl: `${images.base}/group.jpg` });
    expect(reply.status).toBe(200);
    expect(reply.body).toMatchObject({
      action: 'ALLOW',
      detection: { likeness: { band: 'unavailable', score: 0 } },
    });
  });
});
