import {
  startDetectionHarness,
  type Client,
  type DetectionHarness,
  type TestIdentity,
} from '../fixtures/detection-harness';
import { scene, startImageServer, type ImageServer } from '../fixtures/image-server';

describe('POST /v1/svc/identity/check', () => {
  let h: DetectionHarness;
  let images: ImageServer;
  let caller: Client;
  let avatar: string;
  let taylor: TestIdentity & { boxId: string };

  beforeAll(async () => {
    h = await startDetectionHarness();
    images = await startImageServer();
    images.serve('/avatar.png', await scene(1000));
    images.serve('/taylor-ref.png', await scene(1));
    avatar = `${images.base}/avatar.png`;
    caller = h.platform();
    const claim = await h.verifiedClaim('Taylor Swift', {
      variations: ['Tay Swift'],
      imageUrls: [`${images.base}/taylor-ref.png`],
    });
    taylor = await h.box(claim, {
      policy: 'LICENSE',
      policyConfig: { contentGuidelines: 'https://ts.example/rules' },
    });
    await h.running.fingerprintReferenceImages();
  });

  afterAll(async () => {
    await h.stop();
    await images.close();
  });

  const check = (name: string, extra: Record<string, unknown> = {}, client = caller) =>
    client.call('POST', '/v1/svc/identity/check', { name, imageUrl: avatar, ...extra });

  it('when a boxed name is checked, then the result is not wrapped in data and carries the identity, policy and action', async () => {
    const { status, body } = await check('Taylor Swift');
    expect(status).toBe(200);
    expect(body).toEqual({
      isBoxed: true,
      isClaimed: true,
      confidence: 1,
      matchedIdentity: {
        claimId: taylor.claimId,
        boxId: taylor.boxId,
        name: 'Taylor Swift',
        variations: ['Tay Swift'],
        entityType: 'INDIVIDUAL',
        verificationTier: 'SILVER',
      },
      policy: 'LICENSE',
      enforcement: 'MODERATE',
      policyDetails: { contentGuidelines: 'https://ts.example/rules' },
      detection: {
        layer: 1,
        matchLayer: 'name',
        classification: 'EXACT_MATCH',
        parodyLikelihood: 0,
        matchedVariations: ['Taylor Swift'],
        imageMatchScore: expect.any(Number),
        bestScore: 1,
        likeness: { score: 0, band: 'none', faces: 0 },
      },
      action: 'REQUIRE_LICENSE',
    });
    expect(body.detection.imageMatchScore).toBeLessThan(0.8);
  });

  it.each([
    'Taylor Swift Official',
    'The Real Taylor Swift',
    'Taylor_Swift_AI',
    'AI Taylr Swift Companion',
    'ТАYLОR SWIFT',
  ])('when the protected name is wrapped or disguised as %j, then it matches the box', async (name) => {
    const { body } = await check(name);
    expect(body).toMatchObject({
      isBoxed: true,
      matchedIdentity: { claimId: taylor.claimId },
      action: 'REQUIRE_LICENSE',
    });
  });

  it('when the name is unrelated but the description names the protected identity, then it matches', async () => {
    const { body } = await check('Melody Bot', {
      description: 'An AI companion that sings like Taylor Swift',
    });
    expect(body).toMatchObject({ isBoxed: true, matchedIdentity: { claimId: taylor.claimId } });
  });

  it('when a name only comes near a protected one, then ALLOW with the near miss in detection.bestScore', async () => {
    const { body } = await check('Tyler Swyft');
    expect(body).toMatchObject({
      isClaimed: false,
      action: 'ALLOW',
      detection: { classification: 'NO_MATCH' },
    });
    expect(body.detection.bestScore).toBeGreaterThan(0.7);
    expect(body.detection.bestScore).toBeLessThan(0.78);
    const unrelated = await check('Ada Lovelace');
    expect(unrelated.body.detection.bestScore).toBe(0);
  });

  it.each([
    ['t a y l o r   s w i f t', 1],
    ['T4yl0r $wift', 1],
    ['Mrs. Taylor Swift', 1],
    ['Tay Swift', 2],
    ['Taylro Swift', 3],
    ['Tailor Swift', 3],
  ])('when the name is written %j, then it still matches (layer %i)', async (name, layer) => {
    const { body } = await check(name);
    expect(body.isBoxed).toBe(true);
    expect(body.matchedIdentity.claimId).toBe(taylor.claimId);
    expect(body.detection.layer).toBe(layer);
    expect(body.action).toBe('REQUIRE_LICENSE');
  });

  it('when the same input is checked twice, then the confidence is the same', async () => {
    const first = await check('Tailor Swfit');
    const second = await check('Tailor Swfit');
    expect(first.body.confidence).toBe(second.body.confidence);
  });

  it('when a name nobody claimed is checked, then ALLOW with no identity (layer 0, NO_MATCH)', async () => {
    const { status, body } = await check('Margaret Oyelaran-Whitfield');
    expect(status).toBe(200);
    expect(body).toMatchObject({
      isBoxed: false,
      isClaimed: false,
      confidence: 0,
      matchedIdentity: null,
      detection: { layer: 0, classification: 'NO_MATCH' },
      action: 'ALLOW',
    });
    expect(body.policy).toBeUndefined();
  });

  it('when a common first name alone is checked, then the protected person is not matched', async () => {
    const { body } = await check('Taylor');
    expect(body.isBoxed).toBe(false);
    const other = await check('Jonathan Swift');
    expect(other.body.isBoxed).toBe(false);
  });

  it("when the picture is a protected identity's reference image under another name, then it matches by image", async () => {
    const { body } = await check('Someone Else Entirely', { imageUrl: `${images.base}/taylor-ref.png` });
    expect(body).toMatchObject({
      isBoxed: true,
      matchedIdentity: { claimId: taylor.claimId },
      detection: { layer: 5, classification: 'IMAGE_MATCH', matchedVariations: [] },
      action: 'REQUIRE_LICENSE',
    });
    expect(body.detection.imageMatchScore).toBeGreaterThan(0.9);
  });

  it('when the name and the picture both match, then the confidence is at least the name match alone', async () => {
    const nameOnly = await check('Tailor Swift');
    const both = await check('Tailor Swift', { imageUrl: `${images.base}/taylor-ref.png` });
    expect(both.body.confidence).toBeGreaterThan(nameOnly.body.confidence);
    // The picture is the stronger evidence (the same picture): it names the layer (docs/spec/contracts.md §15).
    expect(both.body.detection).toMatchObject({
      layer: 5,
      matchLayer: 'image',
      matchedVariations: ['Taylor Swift'],
    });
  });

  it('when the description makes parody likely, then REVIEW_PARODY with the likelihood reported', async () => {
    const { body } = await check('Taylor Swift', { description: 'A satirical parody for a comedy show' });
    expect(body.detection.parodyLikelihood).toBeGreaterThanOrEqual(0.7);
    expect(body.action).toBe('REVIEW_PARODY');
  });

  it('when the calling platform holds an active license on the box, then ALLOW; an expired one does not count', async () => {
    const licensee = h.platform();
    const expired = h.platform();
    await h.activeLicense(licensee, taylor.boxId, new Date('2027-11-22T00:00:00Z'));
    await h.activeLicense(expired, taylor.boxId, new Date('2026-11-01T00:00:00Z'));
    expect((await check('Taylor Swift', {}, licensee)).body.action).toBe('ALLOW');
    expect((await check('Taylor Swift', {}, expired)).body.action).toBe('REQUIRE_LICENSE');
    expect((await check('Taylor Swift')).body.action).toBe('REQUIRE_LICENSE');
  });

  describe('errors', () => {
    it.each([
      ['', 'must not be empty'],
      ['   ', 'must not be empty'],
      ['!!! ...', 'only punctuation'],
      ['a'.repeat(201), 'at most 200'],
      ['Taylor\u0000Swift', 'control characters'],
    ])('when the name is %j, then 400 INVALID_NAME', async (name, reason) => {
      const { status, body } = await check(name);
      expect(status).toBe(400);
      expect(body.error.code).toBe('INVALID_NAME');
      expect(body.error.message).toContain(reason);
    });

    it('when name or imageUrl is missing or not a string, then 400 VALIDATION_ERROR naming the field', async () => {
      const missing = await caller.call('POST', '/v1/svc/identity/check', { name: 'Taylor Swift' });
      expect(missing.status).toBe(400);
      expect(missing.body.error.code).toBe('VALIDATION_ERROR');
      expect(JSON.stringify(missing.body.error.details)).toContain('imageUrl');
      const wrongType = await caller.call('POST', '/v1/svc/identity/check', { name: 42, imageUrl: avatar });
      expect(wrongType.body.error.code).toBe('VALIDATION_ERROR');
    });

    it('when the image URL is not http(s), unreachable or not found, then 422 INVALID_IMAGE_URL', async () => {
      for (const imageUrl of ['ftp://example.com/a.png', 'not a url', `${images.base}/missing.png`]) {
        const { status, body } = await check('Taylor Swift', { imageUrl });
        expect(status).toBe(422);
        expect(body.error.code).toBe('INVALID_IMAGE_URL');
      }
    });

    it('when the image URL answers with a web page, then 422 INVALID_IMAGE_URL', async () => {
      images.serve('/page.html', Buffer.from('<html>hello</html>'), 'text/html');
      const { status, body } = await check('Taylor Swift', { imageUrl: `${images.base}/page.html` });
      expect(status).toBe(422);
      expect(body.error.code).toBe('INVALID_IMAGE_URL');
    });

    it('when no internal token is presented, then 401 and nothing is checked', async () => {
      const { status, body } = await h.raw('POST', '/v1/svc/identity/check', {
        name: 'Taylor Swift',
        imageUrl: avatar,
      });
      expect(status).toBe(401);
      expect(body.error.code).toBe('UNAUTHORIZED');
    });
  });
});
