import { createDatabase, type Database } from '@svc/storage';
import sharp from 'sharp';
import {
  startDetectionHarness,
  type Client,
  type DetectionHarness,
  type TestIdentity,
} from '../fixtures/detection-harness';
import { scene, startImageServer, type ImageServer } from '../fixtures/image-server';

// A protected person's picture, edited the way avatar makers do, under a name that is not theirs:
// the check still finds them by the picture (layer 5). The measured recall per edit is in
// packages/image-fingerprint/README.md; here each edit once, end to end through the service.
describe('POST /v1/svc/identity/check with an edited reference picture', () => {
  let h: DetectionHarness;
  let images: ImageServer;
  let caller: Client;
  let db: Database;
  let ada: TestIdentity & { boxId: string };
  let reference: Buffer;

  beforeAll(async () => {
    h = await startDetectionHarness();
    db = await createDatabase({ url: h.databaseUrl, maxConnections: 1 });
    images = await startImageServer();
    reference = await scene(7, 480);
    images.serve('/ada-ref.png', reference);
    images.serve('/unrelated.png', await scene(8, 480));
    caller = h.platform();
    const claim = await h.verifiedClaim('Ada Lovelace', { imageUrls: [`${images.base}/ada-ref.png`] });
    ada = await h.box(claim, { policy: 'BLOCK_ALL' });
    await h.running.fingerprintReferenceImages();
  });

  afterAll(async () => {
    await db.close();
    await h.stop();
    await images.close();
  });

  const checkPicture = async (path: string) =>
    (
      await caller.call('POST', '/v1/svc/identity/check', {
        name: 'Someone Else Entirely',
        imageUrl: `${images.base}${path}`,
      })
    ).body;

  const edits: [string, (png: Buffer) => Promise<Buffer>][] = [
    ['mirrored', (png) => sharp(png).flop().png().toBuffer()],
    [
      'cut by a quarter on the left',
      (png) => sharp(png).extract({ left: 120, top: 0, width: 360, height: 480 }).png().toBuffer(),
    ],
    ['turned by 12°', (png) => sharp(png).rotate(12, { background: '#ffffff' }).png().toBuffer()],
    [
      'given a caption band',
      (png) =>
        sharp(png)
          .extend({ bottom: 80, background: '#000000' })
          .composite([
            {
              input: Buffer.from(
                '<svg xmlns="http://www.w3.org/2000/svg" width="480" height="80"><text x="240" y="58" font-size="44" text-anchor="middle" font-family="sans-serif" fill="#ffffff">Ada AI</text></svg>',
              ),
              top: 480,
              left: 0,
            },
          ])
          .png()
          .toBuffer(),
    ],
    [
      'colour-shifted and saved as JPEG',
      (png) => sharp(png).modulate({ hue: 40 }).jpeg({ quality: 40 }).toBuffer(),
    ],
  ];

  it.each(edits)(
    'when the picture is %s, then it matches the protected identity by image',
    async (label, edit) => {
      const path = `/edited-${label.replace(/\W+/g, '-')}.png`;
      images.serve(path, await edit(reference));
      const body = await checkPicture(path);
      expect(body).toMatchObject({
        isBoxed: true,
        matchedIdentity: { claimId: ada.claimId },
        detection: { layer: 5, classification: 'IMAGE_MATCH' },
        action: 'BLOCK',
      });
    },
  );

  it('when an unrelated picture is checked, then nothing matches', async () => {
    const body = await checkPicture('/unrelated.png');
    expect(body).toMatchObject({ isClaimed: false, isBoxed: false, action: 'ALLOW' });
  });

  it('when a reference fingerprint is of the first format, then it is not used and the picture is fingerprinted again', async () => {
    // What a replica not yet upgraded writes during a rolling upgrade: a v1 fingerprint.
    await db.query(`UPDATE reference_images SET fingerprint = $2 WHERE claim_id = $1`, [
      ada.claimId,
      '0123456789abcdef'.repeat(6),
    ]);
    await db.query(`UPDATE identities SET change_seq = nextval('identity_change_seq') WHERE claim_id = $1`, [
      ada.claimId,
    ]);
    await h.running.refreshIndex();
    // The old fingerprint is not read: the picture matches nothing until it is fingerprinted again.
    expect(await checkPicture('/ada-ref.png')).toMatchObject({ isBoxed: false, action: 'ALLOW' });

    await h.running.fingerprintReferenceImages();
    const stored = await db.query<{ state: string; fingerprint: string }>(
      `SELECT state, fingerprint FROM reference_images WHERE claim_id = $1`,
      [ada.claimId],
    );
    expect(stored.rows).toEqual([{ state: 'indexed', fingerprint: expect.stringMatching(/^v2:[0-9a-f]+$/) }]);
    expect(await checkPicture('/ada-ref.png')).toMatchObject({
      matchedIdentity: { claimId: ada.claimId },
      detection: { layer: 5 },
    });
  });
});
