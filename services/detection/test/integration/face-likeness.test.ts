import { readFile } from 'node:fs/promises';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import sharp from 'sharp';
import { AVATAR_EVALUATION_PATH } from '@svc/contracts/detection';
import { createDatabase, type Database } from '@svc/storage';
import {
  startDetectionHarness,
  type Client,
  type DetectionHarness,
  type TestIdentity,
} from '../fixtures/detection-harness';
import { scene, startImageServer, type ImageServer } from '../fixtures/image-server';

// docs/spec/contracts.md §15: a protected person's face in another picture, under another name,
// matches them (layer 6, matchLayer face). The pictures are public-domain White House photographs
// of the labelled face set (packages/face-engine/test/fixtures/faces, SOURCES.md): Barack Obama's
// and Joe Biden's official portraits are the reference pictures, and the checked picture is
// another photograph of both, in the Oval Office, which no fingerprint matches.
const FACES = path.resolve(__dirname, '../../../../packages/face-engine/test/fixtures/faces');
const picture = (file: string): Promise<Buffer> => readFile(path.join(FACES, file));

describe('faces: the same person in another picture (docs/spec/contracts.md §15)', () => {
  let h: DetectionHarness;
  let images: ImageServer;
  let caller: Client;
  let db: Database;
  let ada: TestIdentity & { boxId: string };
  let grace: TestIdentity & { boxId: string };
  const logs: string[] = [];

  const url = (p: string): string => `${images.base}${p}`;

  beforeAll(async () => {
    // Generous: the workers share two cores with the rest of the suite (the default is 1 s).
    h = await startDetectionHarness(
      { FACE_CHECK_TIMEOUT_MS: '20000' },
      { logs: { write: (line) => void logs.push(line) } },
    );
    db = await createDatabase({ url: h.databaseUrl, maxConnections: 1 });
    images = await startImageServer();
    const serve = async (route: string, file: string) =>
      images.serve(route, await picture(file), 'image/jpeg');
    await serve('/obama-portrait.jpg', 'wh-obama-official-portrait-2012.jpg');
    await serve('/biden-portrait.jpg', 'wh-biden-vp-official-portrait.jpg');
    await serve('/waving.jpg', 'wh-obama-biden-waving.jpg');
    await serve('/group.jpg', 'wh-obama-biden-oval-office.jpg');
    await serve('/stranger.jpg', 'face-api-demo-sample2.jpg');
    images.serve('/no-face.png', await scene(3, 400));
    caller = h.platform();
    // "Ada" is protected by Obama's face, "Grace" by Biden's (the names are the check's, not theirs).
    ada = await h.box(
      await h.verifiedClaim('Ada Lovelace', {
        imageUrls: [url('/obama-portrait.jpg'), url('/no-face.png'), url('/waving.jpg')],
      }),
      { policy: 'BLOCK_ALL' },
    );
    grace = await h.box(await h.verifiedClaim('Grace Hopper', { imageUrls: [url('/biden-portrait.jpg')] }), {
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
      [url('/obama-portrait.jpg')]: ['enrolled', true],
      [url('/no-face.png')]: ['no_face', false],
      [url('/waving.jpg')]: ['several_faces', false],
      [url('/biden-portrait.jpg')]: ['enrolled', true],
    });
    const outbox = await db.query<{ type: string; payload: unknown }>(
      `SELECT type, payload FROM outbox WHERE type = 'detection.reference_image.enrolled'`,
    );
    expect(
      outbox.rows.map((r) => (r.payload as { data: { faceStatus: string } }).data.faceStatus).sort(),
    ).toEqual(['enrolled', 'enrolled', 'no_face', 'several_faces']);
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
        likeness: { band: 'match', faces: 2 },
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

  it('when enforcement evaluates an avatar showing a protected face under another name, then its box is matched by face (a violation; the initial scan too)', async () => {
    const evaluate = (body: unknown) => caller.call('POST', AVATAR_EVALUATION_PATH, body);
    const all = await evaluate({
      avatars: [{ ref: 'av_face', name: 'Pixel Person', imageUrl: url('/group.jpg') }],
    });
    expect(all.status).toBe(200);
    expect(all.body.results[0]).toMatchObject({
      ref: 'av_face',
      match: { boxId: ada.boxId, layer: 6, classification: 'FACE_MATCH', likenessScore: expect.any(Number) },
    });
    // A new box's initial scan asks about that box alone.
    const scan = await evaluate({
      avatars: [{ ref: 'av_face', name: 'Pixel Person', imageUrl: url('/group.jpg') }],
      boxId: ada.boxId,
    });
    expect(scan.body.results[0]).toMatchObject({ match: { boxId: ada.boxId, layer: 6 } });
    // Biden is in the picture too: Grace's box (his face) is matched when it is the one scanned.
    const graceScan = await evaluate({
      avatars: [{ ref: 'av_face', name: 'Pixel Person', imageUrl: url('/group.jpg') }],
      boxId: grace.boxId,
    });
    expect(graceScan.body.results[0]).toMatchObject({ match: { boxId: grace.boxId, layer: 6 } });
    const stranger = await evaluate({
      avatars: [{ ref: 'av_stranger', name: 'Pixel Person', imageUrl: url('/stranger.jpg') }],
      boxId: ada.boxId,
    });
    expect(stranger.body.results[0]).toEqual({ ref: 'av_stranger', match: null });
  });

  it('when pictures were checked, then neither they nor their faces are stored or put in an event', async () => {
    await check('Studio Avatar 14', url('/stranger.jpg'));
    const descriptors = await db.query<{ n: string }>(
      `SELECT count(*) AS n FROM reference_images WHERE face_descriptor IS NOT NULL`,
    );
    expect(Number(descriptors.rows[0]?.n)).toBe(2); // the two reference faces only
    const outbox = await db.query<{ payload: unknown }>(`SELECT payload FROM outbox`);
    const text = JSON.stringify(outbox.rows);
    expect(text).not.toContain('stranger.jpg');
    expect(text).not.toContain('group.jpg');
    expect(text).not.toMatch(/descriptor/i);
    // The service logged its requests (debug and above), never a checked picture or a face.
    expect(logs.some((line) => line.includes('request completed'))).toBe(true);
    const logged = logs.join('\n');
    expect(logged).not.toContain('stranger.jpg');
    expect(logged).not.toContain('group.jpg');
    expect(logged).not.toMatch(/descriptor|Float32Array/i);
    // And nothing else in its database holds them: every table's text, searched.
    const tables = await db.query<{ table_name: string }>(
      `SELECT table_name FROM information_schema.tables WHERE table_schema = 'public' AND table_type = 'BASE TABLE'`,
    );
    for (const { table_name: table } of tables.rows) {
      const rows = await db.query(`SELECT * FROM "${table}"`);
      const dump = JSON.stringify(rows.rows);
      expect([table, dump.includes('stranger.jpg') || dump.includes('group.jpg')]).toEqual([table, false]);
    }
  });

  it('when an enrolled face is deleted in the database, then no check matches it, even before the index hears of it', async () => {
    expect(await check('Studio Avatar 15', url('/group.jpg'))).toMatchObject({ isClaimed: true });
    // The reference rows go (as the registry's synchronous forget does) without the index being told.
    await db.query(`DELETE FROM reference_images WHERE claim_id = ANY($1)`, [[ada.claimId, grace.claimId]]);
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
    images.serve('/group.jpg', await picture('wh-obama-biden-oval-office.jpg'), 'image/jpeg');
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

describe('faces in the review band', () => {
  let h: DetectionHarness;
  let images: ImageServer;
  let strict: TestIdentity & { boxId: string };
  let moderate: TestIdentity & { boxId: string };

  beforeAll(async () => {
    h = await startDetectionHarness({ FACE_CHECK_TIMEOUT_MS: '20000' });
    images = await startImageServer();
    images.serve('/biden-portrait.jpg', await picture('wh-biden-vp-official-portrait.jpg'), 'image/jpeg');
    images.serve('/obama-portrait.jpg', await picture('wh-obama-official-portrait-2012.jpg'), 'image/jpeg');
    // Both men again, waving: each face is close to his portrait, not close enough for `match`.
    images.serve('/waving.jpg', await picture('wh-obama-biden-waving.jpg'), 'image/jpeg');
    strict = await h.box(
      await h.verifiedClaim('Strict Person', { imageUrls: [`${images.base}/biden-portrait.jpg`] }),
      { policy: 'BLOCK_ALL', enforcement: 'STRICT' },
    );
    moderate = await h.box(
      await h.verifiedClaim('Moderate Person', { imageUrls: [`${images.base}/obama-portrait.jpg`] }),
      { policy: 'BLOCK_ALL', enforcement: 'MODERATE' },
    );
    await h.running.fingerprintReferenceImages();
    await h.running.refreshIndex();
  }, 120_000);

  afterAll(async () => {
    await h.stop();
    await images.close();
  });

  it('when a face is in the review band, then it acts as a match on a STRICT box only, and bestScore is at least its score', async () => {
    const reply = await h.platform().call('POST', '/v1/svc/identity/check', {
      name: 'Waving Avatar',
      imageUrl: `${images.base}/waving.jpg`,
    });
    expect(reply.body).toMatchObject({
      matchedIdentity: { claimId: strict.claimId, boxId: strict.boxId },
      action: 'BLOCK',
      detection: { layer: 6, matchLayer: 'face', likeness: { band: 'review', faces: 3 } },
    });
    // The MODERATE box's face is in the review band too: not a match there.
    const others = (reply.body.detection.otherMatches ?? []) as { claimId: string }[];
    expect(others.map((m) => m.claimId)).not.toContain(moderate.claimId);
    expect(reply.body.detection.bestScore).toBeGreaterThanOrEqual(reply.body.detection.likeness.score);
  });
});

describe('one platform’s pictures do not hold up another’s (docs/spec/contracts.md §15, §17)', () => {
  let h: DetectionHarness;
  let images: ImageServer;
  let slow: Server;
  let slowBase = '';

  beforeAll(async () => {
    h = await startDetectionHarness({
      FACE_PLATFORM_BUDGET: '1',
      PICTURE_FETCH_CHECK_MS: '600',
      // A batch's time for its pictures as deployed (the harness waits longer elsewhere).
      FACE_BATCH_TIMEOUT_MS: '3500',
    });
    images = await startImageServer();
    images.serve('/group.jpg', await picture('wh-obama-biden-oval-office.jpg'), 'image/jpeg');
    // 10,000 × 10,000 pixels in a few hundred kilobytes: a worker would decode it for about a second.
    images.serve(
      '/huge.png',
      await sharp({ create: { width: 10_000, height: 10_000, channels: 3, background: '#28a' } })
        .png({ compressionLevel: 9 })
        .toBuffer(),
      'image/png',
    );
    // A picture that takes 3 s to arrive: one platform's slow input.
    slow = createServer((_req, res) => {
      const timer = setTimeout(
        () => res.writeHead(200, { 'content-type': 'image/png' }).end(Buffer.alloc(0)),
        3000,
      );
      res.on('close', () => clearTimeout(timer));
    });
    await new Promise<void>((resolve) => slow.listen(0, '127.0.0.1', resolve));
    slowBase = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
  }, 120_000);

  afterAll(async () => {
    await h.stop();
    await images.close();
    slow.closeAllConnections();
    await new Promise<void>((resolve) => slow.close(() => resolve()));
  });

  it('when a picture is slow to arrive, then detection answers 422 within the check’s time instead of the gateway timing out', async () => {
    const started = performance.now();
    const reply = await h
      .platform()
      .call('POST', '/v1/svc/identity/check', { name: 'Slow Picture', imageUrl: `${slowBase}/slow.png` });
    expect(reply.status).toBe(422);
    expect(reply.body.error).toMatchObject({ code: 'INVALID_IMAGE_URL', details: { reason: 'timeout' } });
    expect(performance.now() - started).toBeLessThan(1900);
  });

  it('when a platform sends more pictures than its share, then only its own are refused (429, Retry-After) and another platform’s check is answered', async () => {
    const noisy = h.platform();
    const quiet = h.platform();
    const check = (client: typeof noisy) =>
      client.call('POST', '/v1/svc/identity/check', {
        name: 'Busy Avatar',
        imageUrl: `${images.base}/group.jpg`,
      });
    const replies = await Promise.all([check(noisy), check(noisy), check(noisy), check(noisy)]);
    const refused = replies.filter((r) => r.status === 429);
    expect(refused.length).toBeGreaterThan(0);
    expect(refused[0]?.headers.get('retry-after')).toBe('1');
    expect(refused[0]?.body.error).toMatchObject({
      code: 'RATE_LIMITED',
      details: { limit: 1, remaining: 0 },
    });
    expect(replies.filter((r) => r.status === 200).length).toBeGreaterThan(0);
    const [mine, theirs] = await Promise.all([check(noisy), check(quiet)]);
    expect(theirs.status).toBe(200);
    expect(theirs.body.detection.likeness.band).not.toBe('unavailable');
    expect([200, 429]).toContain(mine.status);
  });

  it('when a checked picture has more pixels than a check takes, then it is refused from its header, before anything decodes it', async () => {
    const started = performance.now();
    const reply = await h
      .platform()
      .call('POST', '/v1/svc/identity/check', { name: 'Huge Picture', imageUrl: `${images.base}/huge.png` });
    expect(reply.status).toBe(422);
    expect(reply.body.error).toMatchObject({
      code: 'INVALID_IMAGE_URL',
      details: { reason: 'too_many_pixels', pixels: 100_000_000, maxPixels: 24_000_000 },
    });
    expect(reply.body.error.message).toMatch(/100 megapixels/);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('when a batch names more slow pictures than it can wait for, then it is answered within its own time, the late items marked', async () => {
    const started = performance.now();
    const reply = await h.platform().call('POST', '/v1/svc/identity/check/batch', {
      identities: Array.from({ length: 40 }, (_, i) => ({
        name: `Batch Avatar ${i}`,
        imageUrl: `${slowBase}/slow-${i}.png`,
      })),
    });
    // 40 pictures of 3 s each, 16 at a time, used to take three rounds of the fetch's 3 s; the
    // batch's time for pictures (FACE_BATCH_TIMEOUT_MS, 3.5 s) now bounds them all.
    expect(reply.status).toBe(200);
    expect(performance.now() - started).toBeLessThan(4500);
    expect(reply.body.results).toHaveLength(40);
    for (const item of reply.body.results) {
      expect(item.error).toMatchObject({ code: 'INVALID_IMAGE_URL' });
    }
  });
});
