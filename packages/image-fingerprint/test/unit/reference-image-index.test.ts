import sharp from 'sharp';
import {
  DEFAULT_MATCH_THRESHOLD,
  FINGERPRINT_WORDS,
  PROBE_VARIANTS,
  PROBE_WORDS,
  REFERENCE_VARIANTS,
  fingerprintFromHex,
  fingerprintImage,
  fingerprintToHex,
  imageSimilarity,
  ReferenceImageIndex,
  type ImageFingerprint,
} from '../../src';
import { centredCrop, scenePng, seededRandom } from '../fixtures/scenes';

// Past about 4,300 images the index probes buckets instead of scanning: the tests that check the
// multi-index search fill it with more random fingerprints than that.
const FILLER = 6000;

function randomWords(length: number, random: () => number): Uint32Array {
  return Uint32Array.from({ length }, () => Math.floor(random() * 2 ** 32));
}

/** Stored fingerprints (no probes), as detection reads them back from storage. */
function randomFingerprints(count: number, seed: number): ImageFingerprint[] {
  const random = seededRandom(seed);
  return Array.from({ length: count }, () => ({ words: randomWords(FINGERPRINT_WORDS, random) }));
}

/** A random 128-bit hash (4 words) with `count` of its bits flipped. */
function withFlippedBits(hash: Uint32Array, count: number, random: () => number): Uint32Array {
  const words = Uint32Array.from(hash);
  const bits = new Set<number>();
  while (bits.size < count) bits.add(Math.floor(random() * 128));
  for (const bit of bits) words[bit >>> 5] = ((words[bit >>> 5] ?? 0) ^ (1 << (31 - (bit & 31)))) >>> 0;
  return words;
}

/**
 * A checked picture whose probe `probe` is the stored hash `variant` of `reference` with `flips`
 * bits flipped, every other probe random: a copy that matches through exactly that pairing.
 */
function queryThrough(
  reference: ImageFingerprint,
  variant: number,
  probe: number,
  flips: number,
  random: () => number,
): ImageFingerprint {
  const probes = randomWords(PROBE_WORDS, random);
  probes.set(
    withFlippedBits(reference.words.subarray(variant * 4, variant * 4 + 4), flips, random),
    probe * 4,
  );
  return { words: randomWords(FINGERPRINT_WORDS, random), probes };
}

/** The stored picture itself, checked: its whole hash as the whole probe. */
function asQuery(reference: ImageFingerprint): ImageFingerprint {
  return queryThrough(reference, 0, 0, 0, seededRandom(reference.words[0] ?? 1));
}

/** A probe that is compared with the stored hash `variant` (the first such probe). */
function probeFor(variant: number): number {
  const table = REFERENCE_VARIANTS[variant]?.table;
  return PROBE_VARIANTS.findIndex((probe) => table !== undefined && probe.searches.includes(table));
}

/** The answer of a full scan, with the index's tie rules (`similarities`: of each entry, if known). */
function bruteForce(
  entries: { identityId: string; imageId: string; fingerprint: ImageFingerprint }[],
  query: ImageFingerprint,
  minSimilarity: number,
  similarities = entries.map((entry) => imageSimilarity(query, entry.fingerprint)),
) {
  let best: { identityId: string; imageId: string; similarity: number } | null = null;
  entries.forEach((entry, i) => {
    const similarity = similarities[i] ?? 0;
    if (similarity < minSimilarity) return;
    if (
      best === null ||
      similarity > best.similarity ||
      (similarity === best.similarity &&
        (entry.identityId < best.identityId ||
          (entry.identityId === best.identityId && entry.imageId < best.imageId)))
    ) {
      best = { identityId: entry.identityId, imageId: entry.imageId, similarity };
    }
  });
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
    // 60 queries: each is compared with a full scan of 6,000 references over every pairing.
    for (let q = 0; q < 60; q += 1) {
      const source = entries[Math.floor(random() * entries.length)];
      if (!source) throw new Error('no entry');
      // Through any stored hash: the whole picture, a one-sided crop or a turn.
      const variant = Math.floor(random() * REFERENCE_VARIANTS.length);
      const query = queryThrough(
        source.fingerprint,
        variant,
        probeFor(variant),
        Math.floor(random() * 24),
        random,
      );
      const similarities = entries.map((entry) => imageSimilarity(query, entry.fingerprint));
      for (const threshold of [0.95, DEFAULT_MATCH_THRESHOLD, 0.8]) {
        const expected = bruteForce(entries, query, threshold, similarities);
        expect(index.bestMatch(query, threshold)).toEqual(expected);
        if (expected !== null) found += 1;
      }
    }
    // The queries must exercise both outcomes, or the comparison above proves little.
    expect(found).toBeGreaterThan(40);
    expect(found).toBeLessThan(180);
  });

  it('when any probe (turned-canvas ones included) is near a stored hash it is paired with, after removals, then it answers exactly as a full scan', () => {
    const index = new ReferenceImageIndex();
    const all = randomFingerprints(FILLER, 31).map((fingerprint, i) => ({
      identityId: `claim_${i % 1500}`,
      imageId: `img_${i}`,
      fingerprint,
    }));
    for (const e of all) index.add(e.identityId, e.imageId, e.fingerprint);
    // Removals unlink entries from the middle of bucket lists on every shelf.
    const removed = new Set(['claim_7', 'claim_300', 'claim_1499']);
    for (const identityId of removed) index.remove(identityId);
    const entries = all.filter((e) => !removed.has(e.identityId));
    const random = seededRandom(32);
    let found = 0;
    for (let q = 0; q < 48; q += 1) {
      const source = entries[Math.floor(random() * entries.length)];
      if (!source) throw new Error('no entry');
      // A probe, and a stored hash it is paired with (a turned-canvas probe: a turn of its angle).
      const probe = q % PROBE_VARIANTS.length;
      const shape = PROBE_VARIANTS[probe];
      const variants = REFERENCE_VARIANTS.flatMap((variant, v) => {
        if (!shape?.searches.includes(variant.table)) return [];
        if (shape && 'turnedCanvas' in shape && 'degrees' in variant)
          return Math.abs(variant.degrees) === shape.turnedCanvas ? [v] : [];
        return [v];
      });
      const variant = variants[Math.floor(random() * variants.length)] ?? 0;
      const query = queryThrough(source.fingerprint, variant, probe, 0, random);
      // Half the queries differ only within one 32-bit word, so whole distances sit exactly at a
      // threshold's limit with every differing bit in a few blocks (the edge of each bound).
      const flips = q % 2 === 0 ? ([1, 6, 17, 25][(q / 2) % 4] ?? 0) : Math.floor(random() * 30);
      const word = Math.floor(random() * 4);
      const bits = new Set<number>();
      while (bits.size < flips)
        bits.add(q % 2 === 0 ? word * 32 + Math.floor(random() * 32) : Math.floor(random() * 128));
      const probes = query.probes ?? new Uint32Array(PROBE_WORDS);
      for (const bit of bits) {
        const at = probe * 4 + (bit >>> 5);
        probes[at] = ((probes[at] ?? 0) ^ (1 << (31 - (bit & 31)))) >>> 0;
      }
      const similarities = entries.map((entry) => imageSimilarity(query, entry.fingerprint));
      for (const threshold of [0.99, 0.95, DEFAULT_MATCH_THRESHOLD, 0.8, 0.75]) {
        const expected = bruteForce(entries, query, threshold, similarities);
        expect(index.bestMatch(query, threshold)).toEqual(expected);
        if (expected !== null) found += 1;
      }
    }
    expect(found).toBeGreaterThan(40);
    expect(found).toBeLessThan(220);
  });

  it.each([
    ['a one-sided crop', 'crop'],
    ['a straightened turn', 'turn'],
  ] as const)('when a query matches only through %s of the reference, then it is found', (_label, table) => {
    const index = new ReferenceImageIndex();
    randomFingerprints(FILLER, 11).forEach((f, i) => index.add(`claim_${i}`, `img_${i}`, f));
    const [reference] = randomFingerprints(1, 12);
    if (!reference) throw new Error('no fingerprint');
    index.add('claim_ref', 'img_ref', reference);
    const variant = REFERENCE_VARIANTS.findIndex((v) => v.table === table);
    const query = queryThrough(reference, variant, 0, 0, seededRandom(13));
    expect(index.bestMatch(query, DEFAULT_MATCH_THRESHOLD)).toEqual({
      identityId: 'claim_ref',
      imageId: 'img_ref',
      similarity: 1,
    });
  });

  it('when a probe is not paired with a stored hash, then that hash does not make a match', () => {
    const index = new ReferenceImageIndex();
    const [reference] = randomFingerprints(1, 14);
    if (!reference) throw new Error('no fingerprint');
    index.add('claim_ref', 'img_ref', reference);
    // A frame probe (centred crop of the checked picture) is compared with whole pictures only.
    const frameProbe = PROBE_VARIANTS.findIndex((p) => p.searches.length === 1 && p.searches[0] === 'whole');
    const crop = REFERENCE_VARIANTS.findIndex((v) => v.table === 'crop');
    expect(index.bestMatch(queryThrough(reference, crop, frameProbe, 0, seededRandom(15)), 0.9)).toBeNull();
    expect(index.bestMatch(queryThrough(reference, 0, frameProbe, 0, seededRandom(15)), 0.9)?.imageId).toBe(
      'img_ref',
    );
  });

  it('when the fingerprint has no probes (read back from storage), then it matches nothing', () => {
    const index = new ReferenceImageIndex();
    const [reference] = randomFingerprints(1, 16);
    if (!reference) throw new Error('no fingerprint');
    index.add('claim_ref', 'img_ref', reference);
    expect(index.bestMatch(fingerprintFromHex(fingerprintToHex(reference)), 0.9)).toBeNull();
  });

  it('when two references are equally close, then the smaller identity id wins, then the smaller image id', () => {
    const index = new ReferenceImageIndex();
    const [fingerprint] = randomFingerprints(1, 5);
    if (!fingerprint) throw new Error('no fingerprint');
    index.add('claim_b', 'img_1', fingerprint);
    index.add('claim_a', 'img_9', fingerprint);
    index.add('claim_a', 'img_3', fingerprint);
    expect(index.bestMatch(queryThrough(fingerprint, 0, 0, 0, seededRandom(6)), 0.9)).toEqual({
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
    const random = seededRandom(22);
    const query = { words: randomWords(FINGERPRINT_WORDS, random), probes: randomWords(PROBE_WORDS, random) };
    const expected = bruteForce(entries, query, 0.6);
    expect(expected).not.toBeNull();
    expect(index.bestMatch(query, 0.6)).toEqual(expected);
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
    expect(index.bestMatch(asQuery(b), DEFAULT_MATCH_THRESHOLD)).toBeNull();

    index.removeImage('img_c');
    expect(index.size).toBe(2);
    expect(index.bestMatch(asQuery(c), DEFAULT_MATCH_THRESHOLD)?.imageId).toBe('img_b');

    index.remove('claim_1');
    expect(index.size).toBe(0);
    expect(index.bestMatch(asQuery(a), DEFAULT_MATCH_THRESHOLD)).toBeNull();
    expect(index.bestMatch(asQuery(c), DEFAULT_MATCH_THRESHOLD)).toBeNull();

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
      const match = index.bestMatch(asQuery(f), 0.99);
      if (i % 100 < 50) expect(match).toBeNull();
      else expect(match?.imageId).toBe(`img_${i}`);
    });
    // Freed slots are reused by new images.
    fingerprints.slice(0, 100).forEach((f, i) => index.add('claim_new', `img_new_${i}`, f));
    expect(
      index.bestMatch(asQuery(fingerprints[0] ?? { words: new Uint32Array(FINGERPRINT_WORDS) }), 0.99)
        ?.imageId,
    ).toBe('img_new_0');
  });
});
