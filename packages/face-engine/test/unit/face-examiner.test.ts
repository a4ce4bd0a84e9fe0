import { readFileSync } from 'node:fs';
import path from 'node:path';
import sharp from 'sharp';
import { NotAnImageError } from '@svc/image-fingerprint';
import {
  createFaceExaminer,
  DESCRIPTOR_LENGTH,
  faceDistance,
  FaceExaminationTimeout,
  FaceExaminerBusy,
  type FaceExamination,
  type FaceExaminer,
} from '../../src';

// The examiner's pool runs the built worker (dist/face-worker.js): build the package first,
// `pnpm exec tsc -b packages/face-engine` (`make test` builds before it tests).

const demo = path.join(path.dirname(require.resolve('@vladmandic/face-api/package.json')), 'demo');
const sample = (n: number): Buffer => readFileSync(path.join(demo, `sample${n}.jpg`));
/** The faces a person counts in face-api's demo photos. */
const FACES_IN_SAMPLE = [3, 3, 3, 4, 5, 4];

jest.setTimeout(60_000);

let examiner: FaceExaminer;

beforeAll(async () => {
  examiner = createFaceExaminer({ threads: 2, maxQueue: 8 });
  // Both workers load their models before the tests measure anything.
  await Promise.all([examiner.examine(sample(2)), examiner.examine(sample(2))]);
});

afterAll(() => examiner.close());

describe('examining pictures in worker threads', () => {
  let examinations: FaceExamination[];

  beforeAll(async () => {
    examinations = await Promise.all(FACES_IN_SAMPLE.map((_, i) => examiner.examine(sample(i + 1))));
  });

  test('when the demo photos are examined, then every face is found but at most one, and nothing else', () => {
    const found = examinations.map((e) => e.faces.length);
    found.forEach((count, i) => {
      expect(count).toBeLessThanOrEqual(FACES_IN_SAMPLE[i] ?? 0);
      expect(count).toBeGreaterThanOrEqual((FACES_IN_SAMPLE[i] ?? 0) - 1);
    });
    expect(found.reduce((a, b) => a + b, 0)).toBeGreaterThanOrEqual(21);
  });

  test('when a face is found, then its box lies in the picture in its own pixels, with a score and a descriptor', async () => {
    const { width, height } = await sharp(sample(1)).metadata();
    expect([examinations[0]?.width, examinations[0]?.height]).toEqual([width, height]);
    for (const examination of examinations) {
      expect(examination.cpuMs).toBeGreaterThan(0);
      for (const { box, score, descriptor } of examination.faces) {
        expect(box.x).toBeGreaterThanOrEqual(0);
        expect(box.y).toBeGreaterThanOrEqual(0);
        expect(box.x + box.width).toBeLessThanOrEqual(examination.width);
        expect(box.y + box.height).toBeLessThanOrEqual(examination.height);
        // Faces in these 1920-px photos are 200 to 330 px tall.
        expect(box.height).toBeGreaterThan(150);
        expect(score).toBeGreaterThan(0.4);
        expect(score).toBeLessThanOrEqual(1);
        expect(descriptor).toBeInstanceOf(Float32Array);
        expect(descriptor).toHaveLength(DESCRIPTOR_LENGTH);
      }
    }
  });

  test('when a picture is examined twice, then each face gets the same descriptor, far from the others', async () => {
    const [first, second] = await Promise.all([examiner.examine(sample(3)), examiner.examine(sample(3))]);
    expect(second.faces).toHaveLength(first.faces.length);
    first.faces.forEach((face, i) => {
      const again = second.faces[i];
      if (again === undefined) throw new Error('a face was lost');
      expect(faceDistance(face.descriptor, again.descriptor)).toBeLessThan(0.05);
      first.faces.forEach((other, j) => {
        if (j !== i) expect(faceDistance(face.descriptor, other.descriptor)).toBeGreaterThan(0.4);
      });
    });
  });

  test('when a picture shows no face, then no face is found', async () => {
    const noise = Buffer.alloc(800 * 600 * 3);
    for (let i = 0; i < noise.length; i += 1) noise[i] = (i * 2654435761) >>> 24;
    const png = await sharp(noise, { raw: { width: 800, height: 600, channels: 3 } })
      .blur(2)
      .png()
      .toBuffer();
    const examination = await examiner.examine(png);
    expect(examination.faces).toEqual([]);
    expect([examination.width, examination.height]).toEqual([800, 600]);
    // Nor when the worker looks again, sharper, for small faces.
    expect((await examiner.examine(png, { smallFaces: true })).faces).toEqual([]);
  });

  test('when the bytes are text, then they are refused with a NotAnImageError', async () => {
    const refusal = examiner.examine(Buffer.from('Grace Brewster Hopper\n'));
    await expect(refusal).rejects.toBeInstanceOf(NotAnImageError);
    await expect(refusal).rejects.toMatchObject({ reason: 'unsupported_format' });
  });

  test('when pictures are examined, then the event loop keeps turning', async () => {
    const lags: number[] = [];
    let last = performance.now();
    const tick = setInterval(() => {
      const now = performance.now();
      lags.push(now - last - 5);
      last = now;
    }, 5);
    const pictures = [1, 4, 5, 6].map((n) => examiner.examine(sample(n)));
    // Two pictures go to the two idle workers at once, the other two wait in piscina's queue.
    expect(examiner.queued).toBe(2);
    await Promise.all(pictures);
    clearInterval(tick);
    lags.sort((a, b) => a - b);
    // Examining the pictures in this thread would stall it for 150 ms or more at a time, so most
    // ticks would be late. The longest lag is not asserted: on a shared machine the OS may hold
    // this thread back now and then.
    expect(lags.length).toBeGreaterThan(20);
    expect(lags[Math.floor(lags.length * 0.9)]).toBeLessThan(50);
  });

  test('when the picture is not examined in time, then it fails with FaceExaminationTimeout and the pool recovers', async () => {
    const late = examiner.examine(sample(6), { timeoutMs: 5 });
    await expect(late).rejects.toBeInstanceOf(FaceExaminationTimeout);
    await expect(late).rejects.toMatchObject({ timeoutMs: 5 });
    // The worker that held the picture was ended; its successor loads the models and answers.
    expect((await examiner.examine(sample(2))).faces.length).toBeGreaterThan(0);
  });

  test("when the caller's signal aborts, then the examination is abandoned with the signal's reason", async () => {
    const controller = new AbortController();
    const abandoned = examiner.examine(sample(4), { signal: controller.signal });
    controller.abort(new Error('the check was cancelled'));
    await expect(abandoned).rejects.toMatchObject({ name: 'AbortError' });
    await expect(examiner.examine(sample(4), { signal: controller.signal })).rejects.toThrow(
      'the check was cancelled',
    );
  });
});

describe('a full examiner', () => {
  test('when every worker is busy and the queue is full, then a picture is refused at once with FaceExaminerBusy', async () => {
    const small = createFaceExaminer({ threads: 1, maxQueue: 1 });
    try {
      await small.examine(sample(2));
      const running = small.examine(sample(1));
      const waiting = small.examine(sample(3));
      expect(small.queued).toBe(1);
      await expect(small.examine(sample(4))).rejects.toBeInstanceOf(FaceExaminerBusy);
      await expect(Promise.all([running, waiting])).resolves.toHaveLength(2);
    } finally {
      await small.close();
    }
    await expect(small.examine(sample(1))).rejects.toThrow('closed');
  });
});
