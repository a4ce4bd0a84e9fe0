import { AVATAR_EVALUATION_PATH, BOX_MATCH_KEYS_PATH } from '@svc/contracts/detection';
import { avatarMatchKeys, MATCH_KEYS_VERSION } from '@svc/name-matching';
import {
  startDetectionHarness,
  type Client,
  type DetectionHarness,
  type TestIdentity,
} from '../fixtures/detection-harness';
import { scene, startImageServer, type ImageServer } from '../fixtures/image-server';

describe(`POST ${AVATAR_EVALUATION_PATH} (enforcement's question)`, () => {
  let h: DetectionHarness;
  let images: ImageServer;
  let enforcement: Client;
  let bjork: TestIdentity & { boxId: string };
  let prince: TestIdentity & { boxId: string };

  beforeAll(async () => {
    h = await startDetectionHarness();
    images = await startImageServer();
    images.serve('/prince.png', await scene(31));
    enforcement = h.platform();
    bjork = await h.box(await h.verifiedClaim('Björk Guðmundsdóttir', { variations: ['Bjork'] }), {
      policy: 'LICENSE',
      enforcement: 'STRICT',
      policyConfig: { licenseTypes: { personal: { price: 5, autoApprove: true } } },
    });
    prince = await h.box(
      await h.verifiedClaim('Prince Rogers Nelson', { imageUrls: [`${images.base}/prince.png`] }),
      {
        policy: 'BLOCK_ALL',
      },
    );
    await h.verifiedClaim('Claimed Notboxed');
    await h.running.fingerprintReferenceImages();
  });

  afterAll(async () => {
    await h.stop();
    await images.close();
  });

  const evaluate = (body: unknown) => enforcement.call('POST', AVATAR_EVALUATION_PATH, body);

  it("when enforcement asks for a box's match keys, then they meet the keys of every name that matches the box and miss unrelated ones", async () => {
    const keysOf = async (boxId: string) => {
      const { status, body } = await enforcement.call('GET', BOX_MATCH_KEYS_PATH.replace(':boxId', boxId));
      expect(status).toBe(200);
      expect(body.version).toBe(MATCH_KEYS_VERSION);
      return new Set<number>(body.keys);
    };
    const keys = await keysOf(bjork.boxId);
    const meets = (name: string, description?: string) =>
      avatarMatchKeys(name, description).some((k) => keys.has(k));
    // The variation, a typo of the full name, and the name written in a description.
    expect(meets('Bjork')).toBe(true);
    expect(meets('Bjrk Gudmundsdottir')).toBe(true);
    expect(meets('Singer', 'an avatar of bjork for fans')).toBe(true);
    expect(meets('Random Person')).toBe(false);
    // A box detection does not hold has no keys: a scan of it asks about no avatar by name.
    expect((await keysOf('box_unknown0000000000000')).size).toBe(0);
    expect((await h.raw('GET', BOX_MATCH_KEYS_PATH.replace(':boxId', bjork.boxId))).status).toBe(401);
  });

  it('when answers are given before and after a new box reaches detection, then each says how far the index had read its projection, further after the box', async () => {
    const before = await evaluate({ avatars: [{ ref: 'k_1', name: 'Knowledge Person' }] });
    expect(before.body.knowledge).toEqual({ projection: expect.any(String), position: expect.any(Number) });
    expect(before.body.results[0].match).toBeNull();
    const box = await h.box(await h.verifiedClaim('Knowledge Person'), { policy: 'BLOCK_ALL' });
    const after = await evaluate({ avatars: [{ ref: 'k_1', name: 'Knowledge Person' }] });
    expect(after.body.results[0].match).toMatchObject({ boxId: box.boxId });
    expect(after.body.knowledge.projection).toBe(before.body.knowledge.projection);
    expect(after.body.knowledge.position).toBeGreaterThan(before.body.knowledge.position);
    // A box's scan says it too.
    const scan = await evaluate({ avatars: [{ ref: 'k_1', name: 'Knowledge Person' }], boxId: box.boxId });
    expect(scan.body.knowledge.position).toBeGreaterThanOrEqual(after.body.knowledge.position);
  });

  it('when avatars are evaluated, then each gets its best matching box with the policy to judge it by, or null', async () => {
    const { status, body } = await evaluate({
      avatars: [
        { ref: 'av_1', name: 'Bjork', description: 'Icelandic singer avatar' },
        { ref: 'av_2', name: 'Random Person' },
        { ref: 'av_3', name: 'Claimed Notboxed' },
        { ref: 'av_4', name: 'Purple One', imageUrl: `${images.base}/prince.png` },
      ],
    });
    expect(status).toBe(200);
    expect(body.results[0]).toEqual({
      ref: 'av_1',
      match: {
        boxId: bjork.boxId,
        claimId: bjork.claimId,
        identityName: 'Björk Guðmundsdóttir',
        ownerPlatformId: bjork.ownerPlatformId,
        policy: 'LICENSE',
        enforcement: 'STRICT',
        policyConfig: { licenseTypes: { personal: { price: 5, autoApprove: true } } },
        confidence: 0.97,
        layer: 2,
        classification: 'VARIATION_MATCH',
        matchedVariations: ['Bjork'],
        imageMatchScore: null,
        parodyLikelihood: 0,
      },
    });
    // Only boxed identities are enforced: a claim without a box is no match here.
    expect(body.results[1]).toEqual({ ref: 'av_2', match: null });
    expect(body.results[2]).toEqual({ ref: 'av_3', match: null });
    expect(body.results[3].match).toMatchObject({
      boxId: prince.boxId,
      layer: 5,
      classification: 'IMAGE_MATCH',
    });
  });

  it('when a box is named, then only that box is considered (a new box scanning existing avatars)', async () => {
    const { body } = await evaluate({
      boxId: prince.boxId,
      avatars: [
        { ref: 'a', name: 'Bjork' },
        { ref: 'b', name: 'Prince Rogers Nelson' },
      ],
    });
    expect(body.results).toEqual([
      { ref: 'a', match: null },
      { ref: 'b', match: expect.objectContaining({ boxId: prince.boxId, layer: 1 }) },
    ]);
  });

  it("when an avatar's picture cannot be fetched, then it is judged on its name, never refused", async () => {
    const { status, body } = await evaluate({
      avatars: [{ ref: 'x', name: 'Prince Rogers Nelson', imageUrl: `${images.base}/gone.png` }],
    });
    expect(status).toBe(200);
    expect(body.results[0].match).toMatchObject({ boxId: prince.boxId, imageMatchScore: null });
  });

  it('when the body is invalid (no avatars, more than 100), then 400 VALIDATION_ERROR; no token, 401', async () => {
    expect((await evaluate({ avatars: [] })).status).toBe(400);
    const many = Array.from({ length: 101 }, (_, i) => ({ ref: `r${i}`, name: 'Bjork' }));
    expect((await evaluate({ avatars: many })).body.error.code).toBe('VALIDATION_ERROR');
    expect(
      (await h.raw('POST', AVATAR_EVALUATION_PATH, { avatars: [{ ref: 'r', name: 'Bjork' }] })).status,
    ).toBe(401);
  });
});
