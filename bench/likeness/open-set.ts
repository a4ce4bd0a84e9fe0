/**
 * Open-set figures of the face likeness: how many false face matches one checked face
 * can expect against 10k, 100k and 1M enrolled faces. A check compares the face with every
 * enrolled face, so each comparison's false-match probability is multiplied by their number; the
 * labelled set (packages/face-engine/test/fixtures/faces) has some 12,000 stranger pairs, far too
 * few to show a 1e-9 tail, so the tail is a normal fitted to the closest 1 % of them (the model in
 * likeness.ts), checked against the counts it predicts for the set itself.
 *
 *   pnpm exec tsc -b bench && node bench/dist/likeness/open-set-run.js
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import {
  IMPOSTOR_TAIL,
  LIKENESS_BUDGETS,
  LIKENESS_THRESHOLDS,
  createFaceExaminer,
  expectedFalseMatches,
  identityDistances,
  impostorTailOf,
  labelFoundFaces,
  matchDistanceOf,
  normalCdf,
  openSetFigures,
  pairDistances,
  type ExaminedFace,
  type LabelledFaceSet,
  type OpenSetRow,
} from '@svc/face-engine';

/** Enrolled faces the figures are given for. */
export const OPEN_SET_GALLERIES = [10_000, 100_000, 1_000_000] as const;

/** What the open-set figures found. */
export interface OpenSetReport {
  pictures: number;
  faces: number;
  genuinePairs: number;
  impostorPairs: number;
  /** The tail refitted on this run's examination, beside the model likeness.ts uses. */
  refit: { mean: number; sd: number; correlation: number };
  model: { mean: number; sd: number; correlation: number };
  /** Stranger pairs of the set within a distance, as counted and as the model predicts. */
  calibration: { distance: number; observed: number; predicted: number }[];
  rows: OpenSetRow[];
  /** Expected false matches per checked face at 1M enrolled faces with the gallery's match edge (goal: at most 0.001). */
  atOneMillion: number;
  /** The same with the refitted tail instead of the model's. */
  atOneMillionRefit: number;
  missed: number;
}

function facesDir(): string {
  let dir = __dirname;
  while (!existsSync(path.join(dir, 'pnpm-workspace.yaml'))) {
    const up = path.dirname(dir);
    if (up === dir) throw new Error('the workspace root was not found above ' + __dirname);
    dir = up;
  }
  return path.join(dir, 'packages', 'face-engine', 'test', 'fixtures', 'faces');
}

const e2 = (n: number): string => n.toExponential(2);
const f3 = (n: number): string => (Number.isFinite(n) ? n.toFixed(3) : '  -  ');

/** Examines the labelled set, prints the open-set figures with PASS/MISS, and returns them. */
export async function openSetReport(): Promise<OpenSetReport> {
  const dir = facesDir();
  const set = JSON.parse(readFileSync(path.join(dir, 'faces.json'), 'utf8')) as LabelledFaceSet;
  const examiner = createFaceExaminer({ maxQueue: 1024 });
  const faces: ExaminedFace[] = [];
  let missed = 0;
  try {
    const examinations = await Promise.all(
      set.pictures.map((p) => examiner.examine(readFileSync(path.join(dir, p.file)))),
    );
    set.pictures.forEach((picture, i) => {
      const labelled = labelFoundFaces(picture, examinations[i]?.faces ?? []);
      faces.push(...labelled.faces);
      missed += labelled.missed.length;
    });
  } finally {
    await examiner.close();
  }
  const pairs = pairDistances(set, faces);
  const genuine = Object.values(pairs.genuine).flat();
  const impostor = Object.values(pairs.impostor).flat();
  const refit = impostorTailOf(set, faces, pairs);
  const model = { mean: IMPOSTOR_TAIL.mean, sd: IMPOSTOR_TAIL.sd, correlation: IMPOSTOR_TAIL.correlation };

  console.log(
    `labelled set: ${set.pictures.length} pictures, ${faces.length} faces found (${missed} missed), ` +
      `${genuine.length} genuine pairs, ${impostor.length} stranger pairs`,
  );
  console.log(
    `stranger distances' lower tail: normal(${f3(refit.mean)}, ${f3(refit.sd)}) refitted on the closest 1 %; ` +
      `likeness.ts: normal(${model.mean}, ${model.sd}); correlation to two pictures of one person ${f3(refit.correlation)} (model ${model.correlation})`,
  );
  const calibration = [0.45, 0.5, 0.55, 0.6, 0.65].map((distance) => ({
    distance,
    observed: impostor.filter((d) => d <= distance).length,
    predicted: impostor.length * normalCdf((distance - model.mean) / model.sd),
  }));
  console.log('the model against the set (stranger pairs within a distance):');
  for (const c of calibration) {
    console.log(
      `  <= ${c.distance.toFixed(2)}: observed ${String(c.observed).padStart(4)}, predicted ${c.predicted.toFixed(1).padStart(6)}`,
    );
  }

  const byReferences = new Map<number, number[]>([
    [1, genuine],
    [2, identityDistances(faces, 2)],
    [3, identityDistances(faces, 3)],
  ]);
  const rows = openSetFigures(OPEN_SET_GALLERIES, byReferences, LIKENESS_THRESHOLDS.match);
  console.log(
    `\nexpected false matches per checked face (a picture with several faces: times its faces); ` +
      `budgets ${LIKENESS_BUDGETS.match} (match) and ${LIKENESS_BUDGETS.review} (review) per check`,
  );
  console.log(
    '  enrolled  refs  at fixed 0.44   match edge  expected   review edge  expected reviews  recall(match)  recall(+review)  genuine',
  );
  for (const r of rows) {
    console.log(
      `  ${r.gallerySize.toLocaleString('en').padStart(9)} ${String(r.references).padStart(4)} ${e2(r.expectedAtFixedThreshold).padStart(14)} ` +
        `${f3(r.matchDistance).padStart(12)} ${e2(r.expectedFalseMatches).padStart(10)} ${f3(r.reviewDistance).padStart(13)} ` +
        `${e2(r.expectedReviews).padStart(17)} ${f3(r.recallMatch).padStart(14)} ${f3(r.recallMatchOrReview).padStart(16)} ${String(r.genuine).padStart(8)}`,
    );
  }

  const edge = matchDistanceOf(1_000_000);
  const atOneMillion = expectedFalseMatches(edge, 1_000_000);
  const atOneMillionRefit = 1_000_000 * normalCdf((edge - refit.mean) / refit.sd);
  const goals: [string, number, number][] = [
    ['false matches per check at 1M, match edge (model)', atOneMillion, LIKENESS_BUDGETS.match],
    ['false matches per check at 1M, match edge (refit)', atOneMillionRefit, LIKENESS_BUDGETS.match],
    [
      'false matches per check at 1M, fixed 0.44 (baseline)',
      expectedFalseMatches(LIKENESS_THRESHOLDS.match, 1_000_000),
      LIKENESS_BUDGETS.match,
    ],
  ];
  console.log('\ngoals:');
  for (const [label, value, goal] of goals) {
    console.log(
      `  ${value <= goal * 1.0001 ? 'PASS' : 'MISS'}  ${label.padEnd(54)} ${e2(value).padStart(9)}  (goal <= ${goal})`,
    );
  }
  return {
    pictures: set.pictures.length,
    faces: faces.length,
    genuinePairs: genuine.length,
    impostorPairs: impostor.length,
    refit,
    model,
    calibration,
    rows,
    atOneMillion,
    atOneMillionRefit,
    missed,
  };
}
