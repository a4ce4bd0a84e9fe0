import sharp from 'sharp';
import {
  DEFAULT_MATCH_THRESHOLD,
  FINGERPRINT_WORDS,
  fingerprintFromHex,
  fingerprintImage,
  fingerprintToHex,
  imageSimilarity,
  isCurrentFingerprintHex,
  isNotAnImageError,
  NotAnImageError,
  type ImageFingerprint,
} from '../../src';
import { scenePng, TRANSFORMS } from '../fixtures/scenes';

// Generated scenes (test/fixtures/scenes.ts): the figures in the README come from the same
// generator over 100 scenes; here 24 keep the run short.
const SCENES = 24;
const TRANSFORMED_SCENES = [1, 2, 3, 4];
const REQUIRED = [
  'resized to 50%',
  'resized to 200%',
  'JPEG at quality 30',
  'JPEG at quality 40',
  'WebP at quality 75',
  'WebP at quality 40',
  'cropped by 5% on each side',
  'brightened by 10%',
  'darkened by 10%',
  'cropped 5%, halved and saved as JPEG 35',
];

const pictures = new Map<number, Buffer>();
const fingerprints = new Map<number, ImageFingerprint>();

beforeAll(async () => {
  for (let seed = 1; seed <= SCENES; seed += 1) {
    const png = await scenePng(seed);
    pictures.set(seed, png);
    fingerprints.set(seed, await fingerprintImage(png));
  }
});

async function reasonOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof NotAnImageError) return err.reason;
    throw err;
  }
  throw new Error('expected a NotAnImageError');
}

describe('fingerprintImage: the same picture', () => {
  const cases = REQUIRED.flatMap((transform) => TRANSFORMED_SCENES.map((seed) => [transform, seed] as const));

  it.each(cases)(
    'when the picture is %s (scene %i), then it stays at or above the threshold',
    async (name, seed) => {
      const transform = TRANSFORMS[name];
      const original = fingerprints.get(seed);
      const png = pictures.get(seed);
      if (!transform || !original || !png) throw new Error(`no fixture for ${name} / ${seed}`);
      const copy = await fingerprintImage(await transform(png));
      expect(imageSimilarity(original, copy)).toBeGreaterThanOrEqual(DEFAULT_MATCH_THRESHOLD);
    },
  );

  it('when the same bytes are fingerprinted twice, then the fingerprints are identical', async () => {
    const png = pictures.get(5);
    if (!png) throw new Error('no scene 5');
    const [a, b] = await Promise.all([fingerprintImage(png), fingerprintImage(png)]);
    expect(fingerprintToHex(a)).toBe(fingerprintToHex(b));
    expect(imageSimilarity(a, b)).toBe(1);
  });
});

describe('fingerprintImage: different pictures', () => {
  it(`when ${SCENES} different scenes are compared pairwise, then every pair is well below the threshold`, () => {
    let highest = 0;
    for (let a = 1; a <= SCENES; a += 1) {
      for (let b = a + 1; b <= SCENES; b += 1) {
        const fa = fingerprints.get(a);
        const fb = fingerprints.get(b);
        if (!fa || !fb) throw new Error('missing scene');
        highest = Math.max(highest, imageSimilarity(fa, fb));
      }
    }
    // Measured 0.758 at worst over 4,950 pairs (README); keep at least 10 bits of margin here.
    expect(highest).toBeLessThan(DEFAULT_MATCH_THRESHOLD - 10 / 128);
  });

  it('when two pictures are compared either way round, then the similarity is the same', () => {
    const a = fingerprints.get(1);
    const b = fingerprints.get(2);
    if (!a || !b) throw new Error('missing scene');
    expect(imageSimilarity(a, b)).toBe(imageSimilarity(b, a));
    expect(imageSimilarity(a, b)).toBeGreaterThanOrEqual(0);
    expect(imageSimilarity(a, b)).toBeLessThan(1);
  });
});

describe('fingerprintImage: what is not a picture', () => {
  it('when the bytes are a text file, then NotAnImageError is thrown', async () => {
    const text = Buffer.from('name,url\nTaylor,https://example.com/a.jpg\n');
    await expect(fingerprintImage(text)).rejects.toBeInstanceOf(NotAnImageError);
    expect(await reasonOf(fingerprintImage(text))).toBe('unsupported_format');
  });

  it('when a JPEG is truncated, then NotAnImageError is thrown', async () => {
    const png = pictures.get(1);
    if (!png) throw new Error('no scene 1');
    const jpeg = await sharp(png).jpeg({ quality: 80 }).toBuffer();
    const truncated = jpeg.subarray(0, Math.floor(jpeg.length / 2));
    expect(await reasonOf(fingerprintImage(truncated))).toBe('corrupt');
  });

  it('when the bytes are an SVG document, then it is refused as not a raster picture', async () => {
    const svg = Buffer.from(
      '<svg xmlns="http://www.w3.org/2000/svg" width="64" height="64"><rect width="64" height="64"/></svg>',
    );
    expect(await reasonOf(fingerprintImage(svg))).toBe('unsupported_format');
  });

  it('when a picture declares more than 100 megapixels, then it is refused before decoding', async () => {
    // A 1x1 GIF whose header claims 20000 x 20000 (400 MP): refused from the header alone.
    const gif = Buffer.from(
      await sharp({ create: { width: 1, height: 1, channels: 3, background: '#f00' } })
        .gif()
        .toBuffer(),
    );
    gif.writeUInt16LE(20000, 6);
    gif.writeUInt16LE(20000, 8);
    const descriptor = gif.indexOf(0x2c, 13);
    gif.writeUInt16LE(20000, descriptor + 5);
    gif.writeUInt16LE(20000, descriptor + 7);
    expect(await reasonOf(fingerprintImage(gif))).toBe('too_many_pixels');
  });

  it('when the error crosses a package copy, then isNotAnImageError still recognises it', () => {
    const foreign = Object.assign(new Error('x'), { name: 'NotAnImageError' });
    expect(isNotAnImageError(foreign)).toBe(true);
    expect(isNotAnImageError(new Error('x'))).toBe(false);
  });
});

describe('fingerprint hex form', () => {
  it('when a fingerprint is written as hex and read back, then its stored hashes are the same', () => {
    const original = fingerprints.get(7);
    if (!original) throw new Error('no scene 7');
    const hex = fingerprintToHex(original);
    expect(hex).toMatch(new RegExp(`^v2:[0-9a-f]{${FINGERPRINT_WORDS * 8}}$`));
    const back = fingerprintFromHex(hex);
    expect(Array.from(back.words)).toEqual(Array.from(original.words));
    expect(fingerprintFromHex(`v2:${hex.slice(3).toUpperCase()}`).words).toEqual(original.words);
    // The probes are not stored: what is read back is a reference, matched by other pictures' probes.
    expect(back.probes).toBeUndefined();
    expect(imageSimilarity(back, original)).toBe(1);
  });

  it('when the hex is not a fingerprint, then reading it throws', () => {
    expect(() => fingerprintFromHex('abc')).toThrow(/hex characters/);
    expect(() => fingerprintFromHex(`v2:${'g'.repeat(FINGERPRINT_WORDS * 8)}`)).toThrow(/hex characters/);
    expect(() => fingerprintFromHex(`v2:${'0'.repeat(FINGERPRINT_WORDS * 8 - 1)}`)).toThrow();
  });

  it('when the hex is a fingerprint of the first format, then it is recognised as one to recompute', () => {
    const v1 = '0123456789abcdef'.repeat(6);
    expect(isCurrentFingerprintHex(v1)).toBe(false);
    expect(() => fingerprintFromHex(v1)).toThrow(/v2/);
    const original = fingerprints.get(7);
    if (!original) throw new Error('no scene 7');
    expect(isCurrentFingerprintHex(fingerprintToHex(original))).toBe(true);
  });
});
