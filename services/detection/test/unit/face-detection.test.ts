import { ManualClock } from '@svc/clock';
import { isAppError } from '@svc/errors';
import { fingerprintImage } from '@svc/image-fingerprint';
import sharp from 'sharp';
import { checkIdentity, detect, type CheckedPicture } from '../../src/domain/check-identity.use-case';
import { FaceGallery } from '../../src/domain/face-matching/face-gallery';
import { IdentityCatalogue } from '../../src/domain/identity-catalogue';
import type { IndexedIdentity, Policy } from '../../src/domain/identity';
import { IMAGE_MATCH_THRESHOLD } from '../../src/domain/image-matching';
import type { DetectionContext, PictureAnalysis } from '../../src/domain/ports';

// docs/spec/contracts.md §15, the rules of the face layer on a catalogue in memory: descriptors
// are made up (unit vectors a known distance apart), so each band is reached on purpose.

/** A unit vector along axis `i`, and one `distance` away from it (in the plane of axes i and j). */
const axis = (i: number): Float32Array => {
  const v = new Float32Array(128);
  v[i] = 1;
  return v;
};
function near(i: number, j: number, distance: number): Float32Array {
  // Two unit vectors at angle θ are 2 sin(θ/2) apart.
  const theta = 2 * Math.asin(distance / 2);
  const v = new Float32Array(128);
  v[i] = Math.cos(theta);
  v[j] = Math.sin(theta);
  return v;
}

function identity(
  claimId: string,
  name: string,
  policy: Policy | null,
  enforcement = 'MODERATE',
): IndexedIdentity {
  return {
    claimId,
    ownerPlatformId: 'plat_owner',
    name,
    variations: [],
    entityType: 'INDIVIDUAL',
    verificationTier: 'GOLD',
    verifiedAt: new Date('2026-01-01T00:00:00Z'),
    box:
      policy === null
        ? null
        : {
            boxId: `box_${claimId}`,
            policy,
            enforcement: enforcement as 'MODERATE',
            policyConfig: {},
            royaltyRate: 0,
            boxedAt: new Date('2026-01-02T00:00:00Z'),
          },
  };
}

let blank: CheckedPicture['fingerprint'];
beforeAll(async () => {
  blank = await fingerprintImage(
    await sharp({ create: { width: 64, height: 64, channels: 3, background: '#777' } })
      .png()
      .toBuffer(),
  );
});

function catalogueWith(...entries: [IndexedIdentity, Float32Array[]][]): IdentityCatalogue {
  const catalogue = new IdentityCatalogue(IMAGE_MATCH_THRESHOLD);
  for (const [who, faces] of entries) {
    catalogue.put(
      who,
      [],
      faces.map((descriptor, i) => ({ imageId: `img_${who.claimId}_${i}`, descriptor })),
    );
  }
  return catalogue;
}

const picture = (...descriptors: Float32Array[]): CheckedPicture => ({
  fingerprint: blank,
  faces: { descriptors },
});

describe('detect: the face layer', () => {
  const ada = identity('claim_ada', 'Ada Lovelace', 'BLOCK_ALL');
  const grace = identity('claim_grace', 'Grace Hopper', 'OPEN');
  const strict = identity('claim_strict', 'Strict Person', 'BLOCK_ALL', 'STRICT');

  it('when a face lies within the match edge, then its identity matches by face whatever the name', () => {
    const catalogue = catalogueWith([ada, [axis(0)]]);
    const found = detect({ catalogue }, 'Studio Avatar 12', picture(near(0, 1, 0.3)));
    expect(found).toMatchObject({
      identity: { claimId: 'claim_ada' },
      layer: 6,
      classification: 'FACE_MATCH',
      matchLayer: 'face',
    });
    expect(found.likeness).toEqual({ score: expect.any(Number), band: 'match', faces: 1 });
    expect(found.confidence).toBeGreaterThanOrEqual(0.8);
  });

  it('when a face lies in the review band, then it matches a STRICT box only, and bestScore carries it', () => {
    const catalogue = catalogueWith([ada, [axis(0)]], [strict, [axis(2)]]);
    const moderate = detect({ catalogue }, 'Nobody Known', picture(near(0, 1, 0.55)));
    expect(moderate).toMatchObject({ identity: null, layer: 0, likeness: { band: 'review' } });
    expect(moderate.bestScore).toBeGreaterThanOrEqual(moderate.likeness?.score ?? 1);
    const onStrict = detect({ catalogue }, 'Nobody Known', picture(near(2, 3, 0.55)));
    expect(onStrict).toMatchObject({
      identity: { claimId: 'claim_strict' },
      layer: 6,
      likeness: { band: 'review' },
    });
  });

  it('when the faces were not examined, then the band is unavailable and the name still decides', () => {
    const catalogue = catalogueWith([ada, [axis(0)]]);
    const found = detect({ catalogue }, 'Ada Lovelace', { fingerprint: blank, faces: null });
    expect(found).toMatchObject({
      identity: { claimId: 'claim_ada' },
      matchLayer: 'name',
      likeness: { band: 'unavailable', faces: 0, score: 0 },
    });
  });

  it('when the name and the face are the same identity, then the evidence adds up and the stronger names the layer', () => {
    const catalogue = catalogueWith([ada, [axis(0)]]);
    const found = detect({ catalogue }, 'Ada Lovelace', picture(near(0, 1, 0.2)));
    expect(found).toMatchObject({
      identity: { claimId: 'claim_ada' },
      matchLayer: 'name',
      layer: 1,
      confidence: 1,
    });
    expect(found.candidates).toHaveLength(1);
    const typo = detect({ catalogue }, 'Ada Lovelase', picture(near(0, 1, 0.05)));
    expect(typo.matchLayer).toBe('face');
    expect(typo.confidence).toBeGreaterThan(typo.likenessScore ?? 1);
  });

  it('when the picture shows no enrolled face, then the band is none and no identity comes of it', () => {
    const catalogue = catalogueWith([ada, [axis(0)]]);
    expect(detect({ catalogue }, 'Someone', picture(axis(5), axis(6)))).toMatchObject({
      identity: null,
      likeness: { band: 'none', faces: 2, score: 0 },
    });
    expect(detect({ catalogue }, 'Someone', picture())).toMatchObject({
      likeness: { band: 'none', faces: 0 },
    });
  });

  it('when a box scan asks about one identity, then only its faces count', () => {
    const catalogue = catalogueWith([ada, [axis(0)]], [grace, [axis(2)]]);
    const onGrace = detect({ catalogue }, 'Someone', picture(near(0, 1, 0.2)), undefined, grace);
    expect(onGrace.identity).toBeNull();
    const onAda = detect({ catalogue }, 'Someone', picture(near(0, 1, 0.2)), undefined, ada);
    expect(onAda.identity?.claimId).toBe('claim_ada');
  });

  it('when an identity is removed or its faces forgotten, then its faces match no more', () => {
    const catalogue = catalogueWith([ada, [axis(0)]], [grace, [axis(2)]]);
    catalogue.remove('claim_ada');
    expect(detect({ catalogue }, 'Someone', picture(axis(0))).identity).toBeNull();
    catalogue.forgetFaces(['claim_grace']);
    expect(detect({ catalogue }, 'Someone', picture(axis(2))).identity).toBeNull();
    expect(catalogue.faceCount).toBe(0);
  });
});

describe('detect: an identity with several pictures (the second stage)', () => {
  it('when a face is close to every picture of a person, then their mean decides, with the edges of the whole gallery', () => {
    const ada = identity('claim_ada', 'Ada Lovelace', 'BLOCK_ALL');
    // Three pictures of Ada, each 0.42 from the checked face: with one picture that is a match
    // in a small gallery, and the mean of three agrees.
    const catalogue = catalogueWith([ada, [near(0, 1, 0.42), near(0, 2, 0.42), near(0, 3, 0.42)]]);
    const found = detect({ catalogue }, 'Studio Avatar', picture(axis(0)));
    expect(found).toMatchObject({ identity: { claimId: 'claim_ada' }, likeness: { band: 'match' } });
    // One close picture and two far ones: the mean is far, so no match on one lucky picture.
    const lucky = catalogueWith([ada, [near(0, 1, 0.3), near(0, 2, 0.9), near(0, 3, 0.9)]]);
    expect(detect({ catalogue: lucky }, 'Studio Avatar', picture(axis(0))).identity).toBeNull();
  });
});

describe('checkIdentity: the most restrictive of several identities', () => {
  const ada = identity('claim_ada', 'Ada Lovelace', 'BLOCK_ALL');
  const grace = identity('claim_grace', 'Grace Hopper', 'OPEN');
  const lic = identity('claim_lic', 'Licensed Person', 'LICENSE');

  function context(catalogue: IdentityCatalogue, analysis: PictureAnalysis, live = true): DetectionContext {
    return {
      catalogue,
      images: {
        fingerprintOf: async () => analysis.fingerprint,
        analyse: async () => analysis,
        enrol: async () => ({ fingerprint: analysis.fingerprint, faces: [] }),
      },
      faces: { enrolledFaces: async (_db, ids) => new Set(live ? ids : []) },
      faceTimeouts: { checkMs: 1000, batchMs: 3000 },
      pictureFetchMs: { checkMs: 1000, batchMs: 3000 },
      checkPictureBudgetMs: 1500,
      licenses: {
        activeLicenseTiers: async () => [],
        activeLicenseTiersByBox: async () => new Map([['box_claim_lic', ['commercial']]]),
        upsert: async () => undefined,
      },
      db: {} as DetectionContext['db'],
      clock: new ManualClock(new Date('2026-11-29T00:00:00Z')),
      refresh: async () => undefined,
      knowledge: () => undefined,
      indexReady: () => true,
    };
  }

  it('when the name points to an OPEN box and a face to a BLOCK_ALL one, then BLOCK wins and the name is another match', async () => {
    const catalogue = catalogueWith([ada, [axis(0)]], [grace, [axis(2)]]);
    const outcome = await checkIdentity(
      context(catalogue, picture(near(0, 1, 0.3))),
      { platformId: 'plat_x' },
      {
        name: 'Grace Hopper',
        imageUrl: 'https://img.example/x.jpg',
      },
    );
    expect(outcome).toMatchObject({
      action: 'BLOCK',
      identity: { claimId: 'claim_ada' },
      matchLayer: 'face',
    });
    expect(outcome.otherMatches).toEqual([
      { claimId: 'claim_grace', boxId: 'box_claim_grace', layer: 'name', score: 1 },
    ]);
  });

  it('when the caller holds a license on a LICENSE box a face matched, then that candidate allows and the other decides', async () => {
    const catalogue = catalogueWith([lic, [axis(0)]], [grace, [axis(2)]]);
    const outcome = await checkIdentity(
      context(catalogue, picture(near(0, 1, 0.3))),
      { platformId: 'plat_x' },
      {
        name: 'Grace Hopper',
        imageUrl: 'https://img.example/x.jpg',
      },
    );
    expect(outcome.action).toBe('ALLOW');
    expect(outcome.otherMatches).toHaveLength(1);
  });

  it('when the matched face was deleted a moment ago (the database no longer has it), then the check does not match it', async () => {
    const catalogue = catalogueWith([ada, [axis(0)]]);
    const outcome = await checkIdentity(
      context(catalogue, picture(near(0, 1, 0.3)), false),
      { platformId: 'plat_x' },
      {
        name: 'Someone Else',
        imageUrl: 'https://img.example/x.jpg',
      },
    );
    expect(outcome).toMatchObject({ action: 'ALLOW', identity: null });
  });

  it('when the image URL is not http(s), then 422 before anything is fetched', async () => {
    const catalogue = catalogueWith();
    const refused = await checkIdentity(
      context(catalogue, picture()),
      { platformId: 'plat_x' },
      {
        name: 'Someone',
        imageUrl: 'file:///etc/passwd',
      },
    ).catch((err: unknown) => err);
    expect(isAppError(refused) && refused.code).toBe('INVALID_IMAGE_URL');
  });
});

describe('FaceGallery', () => {
  it('when a gallery is written as parts and read back, then it finds the same faces, and a replaced identity keeps only its new faces', () => {
    const gallery = new FaceGallery();
    gallery.put('claim_a', [
      { imageId: 'img_1', descriptor: axis(0) },
      { imageId: 'img_2', descriptor: axis(1) },
    ]);
    gallery.put('claim_b', [{ imageId: 'img_3', descriptor: axis(2) }]);
    const copy = FaceGallery.fromParts(gallery.parts());
    expect(copy.size).toBe(3);
    expect(copy.search([near(1, 4, 0.1)], 0.5)).toEqual([
      {
        claimId: 'claim_a',
        imageId: 'img_2',
        distance: expect.any(Number),
        meanDistance: expect.any(Number),
        references: 2,
      },
    ]);
    copy.put('claim_a', [{ imageId: 'img_9', descriptor: axis(7) }]);
    expect(copy.search([axis(1)], 0.5)).toEqual([]);
    expect(copy.search([axis(7)], 0.5)[0]).toMatchObject({ claimId: 'claim_a', imageId: 'img_9' });
    expect(copy.search([axis(2)], 0.5, 'claim_a')).toEqual([]);
    expect(FaceGallery.fromParts({}).size).toBe(0);
  });
});
