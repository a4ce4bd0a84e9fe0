/**
 * Face examination cost per picture (goal: at most 200 ms of CPU per picture, median).
 *
 * Every picture of the labelled face set (packages/face-engine/test/fixtures/faces: portraits and
 * group photos, about 130) is examined by `createFaceExaminer({ threads: 1 })`, one at a time, so
 * a picture never waits for the worker and its wall time is its examination. For each picture:
 *   - the examiner's own `cpuMs` (the worker thread's CPU time plus sharp's decoding);
 *   - the process's CPU time over the call (`process.cpuUsage`: the worker, libuv's threads and
 *     this thread's few microseconds of passing the bytes), as a cross-check of `cpuMs`;
 *   - the wall time of `examine`.
 * The same-run baseline: the same picture decoded by sharp alone as the worker decodes it (header,
 * then upright, flattened, sRGB, at most 640 px a side, raw), just before it is examined: what
 * this machine's speed is today, for comparing runs taken on other days.
 *
 * Environment: BENCH_PICTURE_ROUNDS (default 1: each picture once after a warm-up),
 * BENCH_PICTURES_SECONDS (default 150 after the warm-up: the loop stops there and says so), BENCH_FACES_DIR (the
 * labelled set's folder).
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createFaceExaminer } from '@svc/face-engine';
import sharp from 'sharp';

/** The labelled face set, from the built file in bench/dist/likeness or BENCH_FACES_DIR. */
export const FACES_DIR =
  process.env.BENCH_FACES_DIR ??
  path.resolve(__dirname, '..', '..', '..', 'packages', 'face-engine', 'test', 'fixtures', 'faces');

/** The goal of the issue: CPU per examined picture, median. */
export const PICTURE_GOALS = { examinationCpuMedianMs: 200 } as const;

/** One picture of the labelled set, as faces.json lists it (only what the benches read). */
export interface FixturePicture {
  file: string;
  kind: string;
  /** Who is in it; an unnamed person has no slug here. */
  people: string[];
  bytes: Buffer;
}

interface ManifestPicture {
  file: string;
  kind: string;
  faces: { person?: string }[];
}

/** Every picture of the labelled face set with its bytes, in the manifest's order. */
export function loadFixturePictures(): FixturePicture[] {
  const manifest = JSON.parse(readFileSync(path.join(FACES_DIR, 'faces.json'), 'utf8')) as {
    pictures: ManifestPicture[];
  };
  return manifest.pictures.map((picture) => ({
    file: picture.file,
    kind: picture.kind,
    people: picture.faces.flatMap((face) => (face.person === undefined ? [] : [face.person])),
    bytes: readFileSync(path.join(FACES_DIR, picture.file)),
  }));
}

export function intFromEnv(name: string, fallback: number, least = 1): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < least)
    throw new Error(`${name} must be an integer >= ${least}, got "${raw}"`);
  return value;
}

/** The p-th percentile (nearest rank) of the samples. */
export function percentile(samples: readonly number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1))] ?? 0;
}

/** CPU time of this process (every thread) since `from`, in milliseconds. */
export function cpuMsSince(from: NodeJS.CpuUsage): number {
  const used = process.cpuUsage(from);
  return (used.user + used.system) / 1000;
}

export interface PictureFigures {
  pictures: number;
  examinations: number;
  /** True when BENCH_PICTURES_SECONDS ran out before every round was done. */
  cutShort: boolean;
  facesFound: number;
  examinerCpuMedianMs: number;
  examinerCpuP90Ms: number;
  processCpuMedianMs: number;
  processCpuP90Ms: number;
  wallMedianMs: number;
  wallP90Ms: number;
  /** Baseline: sharp's decode to at most 640 px (the worker's decode), process CPU and wall. */
  decodeCpuMedianMs: number;
  decodeCpuP90Ms: number;
  decodeWallMedianMs: number;
  /** The same figures by kind of picture (portrait, single, group). */
  byKind: Record<string, { pictures: number; cpuMedianMs: number; cpuP90Ms: number }>;
  /** Median examiner CPU by number of faces found (0, 1, 2, 3+). */
  cpuMedianByFaces: Record<string, number>;
}

/** What the examination of the set found: each picture's descriptors, for the face search at 1M. */
export interface ExaminedPicture {
  picture: FixturePicture;
  descriptors: Float32Array[];
}

/** The worker's decode, done by sharp alone in this process (see face-examination.ts). */
async function decodeLikeTheWorker(bytes: Buffer): Promise<void> {
  const options = { limitInputPixels: 100_000_000, failOn: 'error' } as const;
  await sharp(bytes, options).metadata();
  await sharp(bytes, options)
    .autoOrient()
    .flatten({ background: '#ffffff' })
    .toColourspace('srgb')
    .resize(640, 640, { fit: 'inside', withoutEnlargement: true })
    .raw({ depth: 'uchar' })
    .toBuffer({ resolveWithObject: true });
}

/** Examines every picture of the set in one worker thread and prints the figures. */
export async function picturesBench(
  pictures: readonly FixturePicture[],
): Promise<{ figures: PictureFigures; examined: ExaminedPicture[] }> {
  const rounds = intFromEnv('BENCH_PICTURE_ROUNDS', 1);
  const seconds = intFromEnv('BENCH_PICTURES_SECONDS', 150);
  console.log(
    `face examination: ${pictures.length} pictures x ${rounds} round(s), one worker thread (createFaceExaminer({ threads: 1 }))`,
  );
  const examiner = createFaceExaminer({ threads: 1 });
  const examined: ExaminedPicture[] = [];
  const rows: { kind: string; faces: number; cpu: number; processCpu: number; wall: number }[] = [];
  const decodeCpu: number[] = [];
  const decodeWall: number[] = [];
  let cutShort = false;
  try {
    // Warm-up: the worker loads tfjs and the models on its first picture; sharp warms up too.
    const loadStart = performance.now();
    for (const picture of pictures.slice(0, 3)) {
      await decodeLikeTheWorker(picture.bytes);
      await examiner.examine(picture.bytes);
    }
    console.log(`  warm-up (model load + 3 pictures): ${(performance.now() - loadStart).toFixed(0)} ms`);
    const deadline = performance.now() + seconds * 1000;
    outer: for (let round = 0; round < rounds; round++) {
      for (const picture of pictures) {
        if (performance.now() > deadline) {
          cutShort = true;
          break outer;
        }
        let cpuFrom = process.cpuUsage();
        let start = performance.now();
        await decodeLikeTheWorker(picture.bytes);
        decodeWall.push(performance.now() - start);
        decodeCpu.push(cpuMsSince(cpuFrom));
        cpuFrom = process.cpuUsage();
        start = performance.now();
        const examination = await examiner.examine(picture.bytes);
        const wall = performance.now() - start;
        rows.push({
          kind: picture.kind,
          faces: examination.faces.length,
          cpu: examination.cpuMs,
          processCpu: cpuMsSince(cpuFrom),
          wall,
        });
        if (round === 0)
          examined.push({ picture, descriptors: examination.faces.map((face) => face.descriptor) });
      }
    }
  } finally {
    await examiner.close();
  }
  const cpu = rows.map((row) => row.cpu);
  const byKind: PictureFigures['byKind'] = {};
  for (const kind of [...new Set(rows.map((row) => row.kind))].sort()) {
    const of = rows.filter((row) => row.kind === kind).map((row) => row.cpu);
    byKind[kind] = { pictures: of.length, cpuMedianMs: percentile(of, 50), cpuP90Ms: percentile(of, 90) };
  }
  const cpuMedianByFaces: Record<string, number> = {};
  for (const [label, test] of [
    ['0', (n: number) => n === 0],
    ['1', (n: number) => n === 1],
    ['2', (n: number) => n === 2],
    ['3+', (n: number) => n >= 3],
  ] as const) {
    const of = rows.filter((row) => test(row.faces)).map((row) => row.cpu);
    if (of.length > 0) cpuMedianByFaces[label] = percentile(of, 50);
  }
  const figures: PictureFigures = {
    pictures: pictures.length,
    examinations: rows.length,
    cutShort,
    facesFound: examined.reduce((sum, e) => sum + e.descriptors.length, 0),
    examinerCpuMedianMs: percentile(cpu, 50),
    examinerCpuP90Ms: percentile(cpu, 90),
    processCpuMedianMs: percentile(
      rows.map((row) => row.processCpu),
      50,
    ),
    processCpuP90Ms: percentile(
      rows.map((row) => row.processCpu),
      90,
    ),
    wallMedianMs: percentile(
      rows.map((row) => row.wall),
      50,
    ),
    wallP90Ms: percentile(
      rows.map((row) => row.wall),
      90,
    ),
    decodeCpuMedianMs: percentile(decodeCpu, 50),
    decodeCpuP90Ms: percentile(decodeCpu, 90),
    decodeWallMedianMs: percentile(decodeWall, 50),
    byKind,
    cpuMedianByFaces,
  };
  const line = (label: string, median: number, p90: number) =>
    console.log(
      `  ${label.padEnd(52)} median ${median.toFixed(1).padStart(7)} ms   p90 ${p90.toFixed(1).padStart(7)} ms`,
    );
  line("examination, CPU (the examiner's cpuMs)", figures.examinerCpuMedianMs, figures.examinerCpuP90Ms);
  line(
    'examination, CPU (process.cpuUsage over the call)',
    figures.processCpuMedianMs,
    figures.processCpuP90Ms,
  );
  line('examination, wall', figures.wallMedianMs, figures.wallP90Ms);
  line('baseline: sharp decode to 640 px alone, CPU', figures.decodeCpuMedianMs, figures.decodeCpuP90Ms);
  for (const [kind, of] of Object.entries(byKind))
    line(`  ${kind} (${of.pictures} pictures), CPU`, of.cpuMedianMs, of.cpuP90Ms);
  console.log(
    `  median CPU by faces found: ${Object.entries(cpuMedianByFaces)
      .map(([faces, ms]) => `${faces}: ${ms.toFixed(0)} ms`)
      .join(', ')}; ${figures.facesFound} faces in ${examined.length} pictures` +
      (cutShort ? ` (cut short by BENCH_PICTURES_SECONDS after ${rows.length} examinations)` : ''),
  );
  return { figures, examined };
}
