import { readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import * as tf from '@tensorflow/tfjs';
import { faceDistance } from '../../src/face-distance';
import { examinePicture, prepareFaceModels, type FaceExaminationSettings } from '../../src/face-examination';
import type { FaceExamination } from '../../src/types';

// What each worker thread of the examiner does, run here in the test's own thread: tfjs's tensors
// can be counted, and the kernels face-engine replaces can be compared with plain arrays.

const SETTINGS: FaceExaminationSettings = { detector: 'tiny', minScore: 0.4, smallFaces: false };
const demo = path.join(path.dirname(require.resolve('@vladmandic/face-api/package.json')), 'demo');
const sample = (n: number): Buffer => readFileSync(path.join(demo, `sample${n}.jpg`));

jest.setTimeout(60_000);

async function examined(bytes: Uint8Array, settings = SETTINGS): Promise<FaceExamination> {
  const outcome = await examinePicture(bytes, settings);
  if (!('examination' in outcome)) throw new Error(`refused: ${outcome.refused.message}`);
  return outcome.examination;
}

async function refusedReason(bytes: Uint8Array): Promise<string> {
  const outcome = await examinePicture(bytes, SETTINGS);
  if (!('refused' in outcome)) throw new Error('the bytes were examined');
  return outcome.refused.reason;
}

beforeAll(() => prepareFaceModels('tiny'));

describe('the WebAssembly kernels face-engine replaces', () => {
  const values = (shape: number[]): number[] =>
    Array.from({ length: shape.reduce((a, b) => a * b, 1) }, (_, i) => (i * 7919) % 1000);

  test('when a tensor is sliced, then the slice holds the same values as the arrays sliced by hand', () => {
    expect(tf.getBackend()).toBe('wasm');
    const x = tf.tensor3d(values([6, 7, 3]), [6, 7, 3], 'int32');
    const rows = x.arraySync();
    const expected = rows.slice(1, 4).map((row) => row.slice(2, 7).map((pixel) => pixel.slice(0, 3)));
    expect(tf.slice3d(x, [1, 2, 0], [3, 5, 3]).arraySync()).toEqual(expected);
    const y = tf.tensor4d(values([2, 4, 5, 3]), [2, 4, 5, 3], 'float32');
    const expected4 = y
      .arraySync()
      .slice(1, 2)
      .map((a) => a.slice(1, 3).map((b) => b.slice(0, 5).map((c) => c.slice(1, 3))));
    expect(tf.slice(y, [1, 1, 0, 1], [1, 2, 5, 2]).arraySync()).toEqual(expected4);
    expect(tf.slice(tf.tensor1d([1, 2, 3, 4]), [1], [2]).arraySync()).toEqual([2, 3]);
    expect(tf.slice(x, [0, 0, 0], [0, 7, 3]).shape).toEqual([0, 7, 3]);
  });

  test('when tensors are concatenated, then the result interleaves them as the arrays joined by hand', () => {
    const shape: [number, number, number] = [3, 4, 1];
    const [r, g, b] = [0, 1, 2].map((k) =>
      tf.tensor3d(
        values(shape).map((v) => v + k),
        shape,
        'float32',
      ),
    );
    if (r === undefined || g === undefined || b === undefined) throw new Error('three channels');
    const [ra, ga, ba] = [r.arraySync(), g.arraySync(), b.arraySync()];
    const channels = ra.map((row, i) =>
      row.map((px, j) => [...px, ...(ga[i]?.[j] ?? []), ...(ba[i]?.[j] ?? [])]),
    );
    expect(tf.concat([r, g, b], 2).arraySync()).toEqual(channels);
    const wide = tf.tensor2d(values([2, 70]), [2, 70]);
    const narrow = tf.tensor2d(values([2, 3]), [2, 3]);
    const joined = tf.concat([wide, narrow], 1).arraySync();
    expect(joined).toEqual(wide.arraySync().map((row, i) => [...row, ...(narrow.arraySync()[i] ?? [])]));
    expect(tf.concat([narrow, tf.tensor2d([], [0, 3])], 0).arraySync()).toEqual(narrow.arraySync());
  });
});

describe('examining a picture in one thread', () => {
  test('when many pictures are examined, then no tensor is left behind', async () => {
    await examined(sample(2));
    const before = tf.memory().numTensors;
    for (const n of [1, 5]) await examined(sample(n));
    await refusedReason(Buffer.from('not a picture'));
    expect(tf.memory().numTensors).toBe(before);
  });

  test('when a picture carries an EXIF orientation, then the faces are found upright, in upright pixels', async () => {
    const upright = await examined(sample(3));
    // The pixels stored turned a quarter left, with orientation 6 (turn them right to show them).
    const turned = await sharp(sample(3)).rotate(-90).withMetadata({ orientation: 6 }).jpeg().toBuffer();
    const shown = await examined(turned);
    expect([shown.width, shown.height]).toEqual([upright.width, upright.height]);
    expect(shown.faces).toHaveLength(upright.faces.length);
    const byX = (e: FaceExamination) => [...e.faces].sort((a, b) => a.box.x - b.box.x);
    byX(shown).forEach((face, i) => {
      const same = byX(upright)[i];
      if (same === undefined) throw new Error('a face more');
      expect(Math.abs(face.box.x - same.box.x)).toBeLessThan(30);
      expect(Math.abs(face.box.y - same.box.y)).toBeLessThan(30);
      expect(faceDistance(face.descriptor, same.descriptor)).toBeLessThan(0.25);
    });
  });

  test('when a picture is greyscale, then its faces are found', async () => {
    const grey = await sharp(sample(3)).greyscale().png().toBuffer();
    expect((await examined(grey)).faces.length).toBeGreaterThanOrEqual(2);
  });

  test('when the faces are small in a large picture, then only the second, sharper look finds them', async () => {
    const small = await sharp(sample(3)).resize(672).toBuffer();
    const large = await sharp({ create: { width: 1920, height: 1350, channels: 3, background: '#777777' } })
      .composite([{ input: small, left: 100, top: 100 }])
      .jpeg()
      .toBuffer();
    const once = await examined(large);
    const twice = await examined(large, { ...SETTINGS, smallFaces: true });
    expect(once.faces).toHaveLength(0);
    expect(twice.faces.length).toBeGreaterThanOrEqual(2);
    for (const face of twice.faces) {
      expect(face.box.x).toBeGreaterThanOrEqual(100);
      expect(face.box.x + face.box.width).toBeLessThanOrEqual(100 + 672);
    }
  });

  test('when the bytes are not a raster picture, then they are refused with the reason', async () => {
    const svg = Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"></svg>');
    const jpeg = sample(1);
    expect(await refusedReason(Buffer.from('hello, this is text'))).toBe('unsupported_format');
    expect(await refusedReason(svg)).toBe('unsupported_format');
    expect(await refusedReason(jpeg.subarray(0, jpeg.length / 3))).toBe('corrupt');
  });
});
