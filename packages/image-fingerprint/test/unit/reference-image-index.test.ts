import sharp from 'sharp';
import {
  DEFAULT_MATCH_THRESHOLD,
  fingerprintImage,
  imageSimilarity,
  ReferenceImageIndex,
  type ImageFingerprint,
} from '../../src';
import { centredCrop, scenePng, seededRandom } from '../fixtures/scenes';

// Past about 4,300 images the index probes buckets instead of scanning: the tests that check the
// multi-index search fill it with more random fingerprints than that.
const FILLER = 6000;

function randomFingerprints(count: number, seed: number): ImageFingerprint[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => ({
    words: Uint32Array.from({ length: 12 }, () => Math.floor(random() * 2 ** 32)),
  }));
}

/** A copy of `fingerprint` with `count` bits flipped in each of its hashes. */
function withFlippedBits(fingerprint: ImageFingerprint, count: number, seed: number): ImageFingerprint {
  const random = seededRandom(seed);
  const words = Uint32Array.from(fingerprint.words);
  for (let hash = 0; hash < 3; hash += 1) {
    const bits = new Set<number>();
    while (bits.size < count) bits.add(Math.floor(random() * 128));
    for (const bit of bits) {
      const at = hash * 4 + (bit >>> 5);
      words[at] = ((words[at] ?? 0) ^ (1 << (31 - (bit & 31)))) >>> 0;
    }
  }
  return { words };
}

/** The answer of a full scan, with the index's tie rules. */
function bruteForce(
  entries: { identityId: string; imageId: string; fingerprint: ImageFingerprint }[],
  query: ImageFingerprint,
  minSimilarity: number,
) {
  let best: { identityId: string; imageId: string; similarity: number } | null = null;
  for (const entry of entries) {
    const similarity = imageSimilarity(query, entry.fingerprint);
    if (similarity < minSimilarity) continue;
    if (
      best === null ||
      similarity > best.similarity ||
      (similarity === best.similarity &&
        (entry.identityId < best.identityId ||
          (entry.identityId === best.identityId && entry.imageId < best.imageId)))
    ) {
      best = { identityId: entry.identityId, imageId: entry.imageId, similarity };
    }
  }
  return best;
}

describe('ReferenceImageIndex with pictures', () => {
  let index: ReferenceImageIndex;
  const scenes = new Map<number, Buffer>();

  beforeAll(async () => {
    index = new ReferenceImageIndex();
    randomFingerprints(FILLER, 99).forEach((fingerprint, i) =>
      index.add(`claim_filler_${i}`, `img_filler_${i}`, fingerprint),
    );
    for (let seed = 1; seed <= 20; seed += 1) {
      const png = await scenePng(seed);
      scenes.set(seed, png);
      index.add(`claim_${seed}`, `img_${seed}`, await fingerprintImage(png));
    }
  });

  it('when a cropped, halved and recompressed copy is looked up among thousands, then its identity is found', async () => {
    const png = scenes.get(7);
    if (!png) throw new Error('no scene 7');
    const cropped = await centredCrop(png, 0.05);
    const copy = await sharp(cropped).resize(300).jpeg({ quality: 35 }).toBuffer();
    const match = index.bestMatch(await fingerprintImage(copy), DEFAULT_MATCH_THRESHOLD);
    expect(match).toMatchObject({ identityId: 'claim_7', imageId: 'img_7' });
    expect(match?.similarity).toBeGreaterThanOrEqual(DEFAULT_MATCH_THRESHOLD);
  });

  it('when a WebP copy is looked up, then the similarity equals imageSimilarity with the reference', async () => {
    const png = scenes.get(12);
    if (!png) throw new Error('no scene 12');
    const copy = await fingerprintImage(await sharp(png).webp({ quality: 40 }).toBuffer());
    const match = index.bestMatch(copy, DEFAULT_MATCH_THRESHOLD);
    expect(match?.identityId).toBe('claim_12');
    expect(match?.similarity).toBe(imageSimilarity(copy, await fingerprintImage(png)));
  });

  it('when an unrelated picture is looked up, then there is no match', async () => {
    const unrelated = await fingerprintImage(await scenePng(500));
    expect(index.bestMatch(unrelated, DEFAULT_MATCH_THRESHOLD)).toBeNull();
  });
});

describe('ReferenceImageIndex search', () => {
  it('when queried near stored fingerprints at several thresholds, then it answers exactly as a full scan', () => {
    const index = new ReferenceImageIndex();
    const entries = randomFingerprints(FILLER, 7).map((fingerprint, i) => ({
      identityId: `claim_${i % 2000}`,
      imageId: `img_${i}`,
      fingerprint,
    }));
    for (const e of entries) index.add(e.identityId, e.imageId, e.fingerprint);
    const random = seededRandom(3);
    let found = 0;
    for (let q = 0; q < 150; q += 1) {
      const source = entries[Math.floor(random() * entries.length)];
      if (!source) throw new Error('no entry');
      const query = withFlippedBits(source.fingerprint, Math.floor(random() * 24), q);
      for (const threshold of [0.95, DEFAULT_MATCH_THRESHOLD, 0.8]) {
        const expected = bruteForce(entries, query, threshold);
        expect(index.bestMatch(query, threshold)).toEqual(expected);
        if (expected !== null) found += 1;
      }
    }
    // The queries must exercise both outcomes, or the comparison above proves little.
    expect(found).toBeGreaterThan(100);
    expect(found).toBeLessThan(450);
  });

  it('when a query matches only through a crop hash, then it is found', () => {
    const index = new ReferenceImageIndex();
    randomFingerprints(FILLER, 11).forEach((f, i) => index.add(`claim_${i}`, `img_${i}`, f));
    const [reference] = randomFingerprints(1, 12);
    if (!reference) throw new Error('no fingerprint');
    index.add('claim_ref', 'img_ref', reference);
    // The query's whole hash is the reference's 8 % crop hash: a copy cropped by 8 % per side.
    const query: ImageFingerprint = { words: new Uint32Array(12) };
    query.words.set(reference.words.subarray(8, 12), 0);
    expect(index.bestMatch(query, DEFAULT_MATCH_THRESHOLD)).toEqual({
      identityId: 'claim_ref',
      imageId: 'img_ref',
      similarity: 1,
    });
    // And the other way round: the reference is a crop of the query.
    const wider: ImageFingerprint = { words: new Uint32Array(12) };
    wider.words.set(reference.words.subarray(0, 4), 4);
    expect(index.bestMatch(wider, DEFAULT_MATCH_THRESHOLD)?.imageId).toBe('img_ref');
  });

  it('when two references are equally close, then the smaller identity id wins, then the smaller image id', () => {
    const index = new ReferenceImageIndex();
    const [fingerprint] = randomFingerprints(1, 5);
    if (!fingerprint) throw new Error('no fingerprint');
    index.add('claim_b', 'img_1', fingerprint);
    index.add('claim_a', 'img_9', fingerprint);
    index.add('claim_a', 'img_3', fingerprint);
    expect(index.bestMatch(fingerprint, 0.9)).toEqual({
      identityId: 'claim_a',
      imageId: 'img_3',
      similarity: 1,
    });
  });

  it('when the threshold is loose, then the scan fallback still returns the closest reference', () => {
    const index = new ReferenceImageIndex();
    const entries = randomFingerprints(300, 21).map((fingerprint, i) => ({
      identityId: `claim_${i}`,
      imageId: `img_${i}`,
      fingerprint,
    }));
    for (const e of entries) index.add(e.identityId, e.imageId, e.fingerprint);
    const [query] = randomFingerprints(1, 22);
    if (!query) throw new Error('no fingerprint');
    expect(index.bestMatch(query, 0.5)).toEqual(bruteForce(entries, query, 0.5));
    expect(index.bestMatch(query, 1.01)).toBeNull();
  });
});

describe('ReferenceImageIndex changes', () => {
  const [a, b, c] = randomFingerprints(3, 31);

  it('when images are added, replaced and removed, then size and matches follow', () => {
    if (!a || !b || !c) throw new Error('no fingerprints');
    const index = new ReferenceImageIndex();
    index.add('claim_1', 'img_a', a);
    index.add('claim_1', 'img_b', b);
    index.add('claim_2', 'img_c', c);
    expect(index.size).toBe(3);

    // The same image id again replaces the image (here: moves it to another fingerprint).
    index.add('claim_1', 'img_b', c);
    expect(index.size).toBe(3);
    expect(index.bestMatch(b, DEFAULT_MATCH_THRESHOLD)).toBeNull();

    index.removeImage('img_c');
    expect(index.size).toBe(2);
    expect(index.bestMatch(c, DEFAULT_MATCH_THRESHOLD)?.imageId).toBe('img_b');

    index.remove('claim_1');
    expect(index.size).toBe(0);
    expect(index.bestMatch(a, DEFAULT_MATCH_THRESHOLD)).toBeNull();
    expect(index.bestMatch(c, DEFAULT_MATCH_THRESHOLD)).toBeNull();

    // Removing what is not there is harmless.
    index.remove('claim_unknown');
    index.removeImage('img_unknown');
    expect(index.size).toBe(0);
  });

  it('when thousands of images are removed and others added, then the buckets stay consistent', () => {
    const index = new ReferenceImageIndex();
    const fingerprints = randomFingerprints(FILLER, 41);
    fingerprints.forEach((f, i) => index.add(`claim_${i % 100}`, `img_${i}`, f));
    for (let i = 0; i < 50; i += 1) index.remove(`claim_${i}`);
    expect(index.size).toBe(FILLER / 2);
    fingerprints.forEach((f, i) => {
      const match = index.bestMatch(f, 0.99);
      if (i % 100 < 50) expect(match).toBeNull();
      else expect(match?.imageId).toBe(`img_${i}`);
    });
    // Freed slots are reused by new images.
    fingerprints.slice(0, 100).forEach((f, i) => index.add('claim_new', `img_new_${i}`, f));
    expect(index.bestMatch(fingerprints[0] ?? { words: new Uint32Array(12) }, 0.99)?.imageId).toBe(
      'img_new_0',
    );
  });
});
