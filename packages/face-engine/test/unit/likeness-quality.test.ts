import sharp from 'sharp';
import { createFaceExaminer } from '../../src/face-examiner';
import { faceDistance } from '../../src/face-distance';
import {
  IMPOSTOR_TAIL,
  LIKENESS_THRESHOLDS,
  expectedFalseMatches,
  matchDistanceOf,
  reviewDistanceOf,
} from '../../src/likeness';
import {
  PAIR_CATEGORIES,
  bandQuality,
  identityDistances,
  impostorTailOf,
  labelFoundFaces,
  openSetFigures,
  pairDistances,
  summarise,
  type DistanceSummary,
  type ExaminedFace,
  type LabelledFace,
  type LabelledPicture,
  type PairDistances,
} from '../../src/likeness-calibration';
import type { FaceExaminer } from '../../src/types';
import { loadLabelledFaceSet, pictureBytes } from '../fixtures/faces/labelled-faces';

// The likeness thresholds (src/likeness.ts) against the labelled face set (test/fixtures/faces):
// every picture is examined by the real examiner (face-api on tfjs-wasm, in worker threads; build
// the package first: `pnpm exec tsc -b packages/face-engine`), every pair of labelled faces is
// measured, and the figures are printed. About a minute on two busy cores; nothing is cached.

jest.setTimeout(240_000);

const set = loadLabelledFaceSet();
let examiner: FaceExaminer;
const faces: ExaminedFace[] = [];
const missed: { picture: string; face: LabelledFace }[] = [];
let pairs: PairDistances;
const report: string[] = [];

const f3 = (n: number): string => (Number.isFinite(n) ? n.toFixed(3) : '  -  ');
const line = (label: string, s: DistanceSummary): string =>
  `  ${label.padEnd(20)} ${String(s.count).padStart(6)}  ` +
  [s.min, s.p01, s.p05, s.p25, s.p50, s.p75, s.p95, s.max].map(f3).join('  ');

beforeAll(async () => {
  examiner = createFaceExaminer({ threads: 2, maxQueue: 1024 });
  const examinations = await Promise.all(set.pictures.map((p) => examiner.examine(pictureBytes(p.file))));
  set.pictures.forEach((picture, i) => {
    const labelled = labelFoundFaces(picture, examinations[i]?.faces ?? []);
    faces.push(...labelled.faces);
    missed.push(...labelled.missed.map((face) => ({ picture: picture.file, face })));
  });
  pairs = pairDistances(set, faces);
});

afterAll(async () => {
  await examiner.close();
  if (report.length > 0) console.log(report.join('\n'));
});

describe('likeness on the labelled face set', () => {
  test('when every picture is examined, then nearly every labelled face is found', () => {
    const labelled = set.pictures.reduce((sum, p) => sum + p.faces.length, 0);
    const people = new Set(faces.map((f) => f.person));
    report.push(
      `labelled set: ${set.pictures.length} pictures, ${labelled} labelled faces of ${people.size} people; ` +
        `found ${faces.length}, missed ${missed.length}${missed.length ? ` (${missed.map((m) => `${m.face.person} in ${m.picture}`).join(', ')})` : ''}`,
    );
    expect(faces.length / labelled).toBeGreaterThanOrEqual(0.98);
  });

  test('when the same person and different people are compared, then the distances fall on either side of the bands', () => {
    report.push(
      '',
      'distances                    pairs    min   p01    p05    p25    p50    p75    p95    max',
    );
    for (const c of PAIR_CATEGORIES) report.push(line(`genuine ${c}`, summarise(pairs.genuine[c])));
    for (const c of PAIR_CATEGORIES) report.push(line(`impostor ${c}`, summarise(pairs.impostor[c])));
    report.push(line('impostor look-alike', summarise(pairs.lookAlike)));
    const genuine = Object.values(pairs.genuine).flat();
    const impostor = Object.values(pairs.impostor).flat();
    // The bands lie between the two: three strangers in four beyond review, half the genuine pairs within 0.05 of match.
    expect(summarise(impostor).p25).toBeGreaterThan(LIKENESS_THRESHOLDS.review);
    expect(summarise(genuine).p50).toBeLessThan(LIKENESS_THRESHOLDS.match + 0.05);
  });

  test('when a face is compared with one enrolled face, then match is 99.5 % precise and match + review finds 95 %, in every kind of picture', () => {
    report.push(
      '',
      `bands for one comparison: match <= ${LIKENESS_THRESHOLDS.match}, review <= ${LIKENESS_THRESHOLDS.review}`,
      '  kind          genuine  impostors  matched  false matches  false reviews  precision  recall(match)  recall(match+review)',
    );
    const all = Object.values(pairs.genuine).flat();
    const rows: [string, number[], number[]][] = [
      ...PAIR_CATEGORIES.map((c): [string, number[], number[]] => [c, pairs.genuine[c], pairs.impostor[c]]),
      // Look-alikes have no genuine pairs of their own: how precise a match stays among them.
      ['look-alike', all, pairs.lookAlike],
      ['all', all, Object.values(pairs.impostor).flat()],
    ];
    for (const [kind, genuine, impostor] of rows) {
      const q = bandQuality(genuine, impostor);
      report.push(
        `  ${kind.padEnd(12)} ${String(q.genuine).padStart(8)} ${String(q.impostors).padStart(10)} ${String(q.matched).padStart(8)} ` +
          `${String(q.falseMatches).padStart(14)} ${String(q.falseReviews).padStart(14)} ${f3(q.precision).padStart(10)} ` +
          `${f3(q.recallMatch).padStart(14)} ${f3(q.recallMatchOrReview).padStart(21)}`,
      );
      // Named, so a failure says which kind of picture fell short.
      expect({ kind, precise: q.precision >= 0.995 }).toEqual({ kind, precise: true });
      if (kind !== 'look-alike')
        expect({ kind, found: q.recallMatchOrReview >= 0.95 }).toEqual({ kind, found: true });
    }
  });

  test('when a face is checked against up to 1M enrolled faces, then it expects at most 0.001 false matches', () => {
    const tail = impostorTailOf(set, faces, pairs);
    report.push(
      '',
      `impostor tail refitted: normal(${f3(tail.mean)}, ${f3(tail.sd)}) on the closest 1 %, correlation ${f3(tail.correlation)}; ` +
        `likeness.ts uses normal(${IMPOSTOR_TAIL.mean}, ${IMPOSTOR_TAIL.sd}), correlation ${IMPOSTOR_TAIL.correlation}`,
    );
    // The model in likeness.ts must stay as cautious as the set: not a lighter tail than the refit.
    const atMatch = (mean: number, sd: number) => (LIKENESS_THRESHOLDS.match - mean) / sd;
    expect(atMatch(IMPOSTOR_TAIL.mean, IMPOSTOR_TAIL.sd)).toBeGreaterThanOrEqual(
      atMatch(tail.mean, tail.sd) - 0.1,
    );
    expect(IMPOSTOR_TAIL.correlation).toBeGreaterThanOrEqual(tail.correlation - 0.05);

    const genuine = new Map<number, number[]>([
      [1, Object.values(pairs.genuine).flat()],
      [2, identityDistances(faces, 2)],
    ]);
    const rows = openSetFigures([1, 1e4, 1e5, 1e6], genuine, LIKENESS_THRESHOLDS.match);
    report.push(
      '  enrolled   refs  E[false] at 0.44  match edge  E[false]   review edge  E[reviews]  recall(match)  recall(match+review)  (genuine)',
    );
    for (const r of rows) {
      report.push(
        `  ${r.gallerySize.toLocaleString('en').padStart(9)} ${String(r.references).padStart(5)} ${r.expectedAtFixedThreshold.toExponential(2).padStart(17)} ` +
          `${f3(r.matchDistance).padStart(11)} ${r.expectedFalseMatches.toExponential(2).padStart(10)} ${f3(r.reviewDistance).padStart(13)} ` +
          `${r.expectedReviews.toExponential(2).padStart(11)} ${f3(r.recallMatch).padStart(14)} ${f3(r.recallMatchOrReview).padStart(21)}  (${r.genuine})`,
      );
      expect(r.expectedFalseMatches).toBeLessThanOrEqual(0.001 * 1.0001);
    }
    expect(expectedFalseMatches(matchDistanceOf(1e6), 1e6)).toBeLessThanOrEqual(0.001 * 1.0001);
  });
});

/** A heavy edit: the edited bytes, and where a point of the picture lands in them. */
interface Edit {
  name: string;
  apply(
    bytes: Buffer,
    face: LabelledFace,
  ): Promise<{ bytes: Buffer; map: (x: number, y: number) => [number, number] }>;
}

async function rotated(bytes: Buffer, degrees: number) {
  const { width = 0, height = 0 } = await sharp(bytes).metadata();
  const out = await sharp(bytes)
    .rotate(degrees, { background: '#ffffff' })
    .jpeg({ quality: 90 })
    .toBuffer({ resolveWithObject: true });
  const t = (degrees * Math.PI) / 180;
  // sharp turns clockwise about the centre and grows the canvas to hold the whole picture.
  const map = (x: number, y: number): [number, number] => {
    const dx = x - width / 2;
    const dy = y - height / 2;
    return [
      out.info.width / 2 + dx * Math.cos(t) - dy * Math.sin(t),
      out.info.height / 2 + dx * Math.sin(t) + dy * Math.cos(t),
    ];
  };
  return { bytes: out.data, map };
}

const same = (x: number, y: number): [number, number] => [x, y];
const EDITS: Edit[] = [
  {
    name: 'crop to the head',
    async apply(bytes, face) {
      const { width = 0, height = 0 } = await sharp(bytes).metadata();
      const [x, y, w, h] = face.box;
      const left = Math.max(0, Math.round(x - 0.6 * w));
      const top = Math.max(0, Math.round(y - 0.6 * h));
      const right = Math.min(width, Math.round(x + 1.6 * w));
      const bottom = Math.min(height, Math.round(y + 1.6 * h));
      const out = await sharp(bytes)
        .extract({ left, top, width: right - left, height: bottom - top })
        .jpeg({ quality: 90 })
        .toBuffer();
      return { bytes: out, map: (px, py) => [px - left, py - top] };
    },
  },
  {
    name: 'mirror',
    async apply(bytes) {
      const { width = 0 } = await sharp(bytes).metadata();
      return {
        bytes: await sharp(bytes).flop().jpeg({ quality: 90 }).toBuffer(),
        map: (x, y) => [width - x, y],
      };
    },
  },
  { name: 'rotate +15°', apply: (bytes) => rotated(bytes, 15) },
  { name: 'rotate -15°', apply: (bytes) => rotated(bytes, -15) },
  {
    name: 'colour shift (hue +40°)',
    async apply(bytes) {
      const out = await sharp(bytes)
        .modulate({ hue: 40, saturation: 1.5, brightness: 1.1 })
        .jpeg({ quality: 90 })
        .toBuffer();
      return { bytes: out, map: same };
    },
  },
  {
    name: 'greyscale',
    async apply(bytes) {
      return { bytes: await sharp(bytes).greyscale().jpeg({ quality: 90 }).toBuffer(), map: same };
    },
  },
  {
    name: 'JPEG quality 30',
    async apply(bytes) {
      return { bytes: await sharp(bytes).jpeg({ quality: 30 }).toBuffer(), map: same };
    },
  },
];

/** Pictures to edit: one face of each person with several pictures, from a one-face picture, at most this many. */
const EDITED_FACES = 10;

describe('likeness of heavily edited pictures', () => {
  test('when a picture is cropped, mirrored, turned, recoloured, greyed or recompressed, then its face stays in the bands', async () => {
    const people = new Map<string, number>();
    for (const f of faces) people.set(f.person, (people.get(f.person) ?? 0) + 1);
    const subjects: { picture: LabelledPicture; face: LabelledFace; original: ExaminedFace }[] = [];
    for (const picture of set.pictures) {
      const face = picture.faces[0];
      if (picture.faces.length !== 1 || face === undefined || (people.get(face.person) ?? 0) < 2) continue;
      if (subjects.some((s) => s.face.person === face.person)) continue;
      const original = faces.find((f) => f.picture === picture.file);
      if (original !== undefined) subjects.push({ picture, face, original });
      if (subjects.length === EDITED_FACES) break;
    }
    const match = matchDistanceOf(1);
    const review = reviewDistanceOf(1);
    const matchAtScale = matchDistanceOf(1e6);
    report.push(
      '',
      `edits of ${subjects.length} faces, against the unedited picture (one comparison; last column: within the match edge at 1M enrolled faces, ${f3(matchAtScale)})`,
      '  edit                        found  recall(match)  recall(match+review)  median distance  max distance  match at 1M',
    );
    const recall = new Map<string, { match: number; matchOrReview: number }>();
    for (const edit of EDITS) {
      const distances = await Promise.all(
        subjects.map(async ({ picture, face, original }) => {
          const edited = await edit.apply(pictureBytes(picture.file), face);
          const examination = await examiner.examine(edited.bytes);
          const [cx, cy] = edited.map(face.box[0] + face.box[2] / 2, face.box[1] + face.box[3] / 2);
          // The found face nearest where the labelled face went, if it is there at all.
          let best: { d: number; distance: number } | undefined;
          for (const found of examination.faces) {
            const d = Math.hypot(
              found.box.x + found.box.width / 2 - cx,
              found.box.y + found.box.height / 2 - cy,
            );
            if (d <= Math.max(face.box[2], face.box[3]) * 0.5 && (best === undefined || d < best.d)) {
              best = { d, distance: faceDistance(original.descriptor, found.descriptor) };
            }
          }
          return best?.distance;
        }),
      );
      const found = distances.filter((d): d is number => d !== undefined);
      const r = {
        match: found.filter((d) => d <= match).length / subjects.length,
        matchOrReview: found.filter((d) => d <= review).length / subjects.length,
      };
      recall.set(edit.name, r);
      const s = summarise(found);
      report.push(
        `  ${edit.name.padEnd(26)} ${`${found.length}/${subjects.length}`.padStart(6)} ${f3(r.match).padStart(14)} ${f3(r.matchOrReview).padStart(21)} ` +
          `${f3(s.p50).padStart(16)} ${f3(s.max).padStart(13)} ${f3(found.filter((d) => d <= matchAtScale).length / subjects.length).padStart(12)}`,
      );
    }
    expect(subjects.length).toBe(EDITED_FACES);
    // What held when the thresholds were chosen (the ADR has the figures): every edit but the
    // colour shift keeps nine faces in ten within review, and mirror, greyscale and JPEG 30 match.
    const held = (name: string) => recall.get(name) ?? { match: 0, matchOrReview: 0 };
    for (const name of [
      'crop to the head',
      'mirror',
      'rotate +15°',
      'rotate -15°',
      'greyscale',
      'JPEG quality 30',
    ]) {
      expect({ name, atLeast90: held(name).matchOrReview >= 0.9 }).toEqual({ name, atLeast90: true });
    }
    for (const name of ['mirror', 'greyscale', 'JPEG quality 30']) {
      expect({ name, atLeast90: held(name).match >= 0.9 }).toEqual({ name, atLeast90: true });
    }
  });
});
