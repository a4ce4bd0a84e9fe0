/**
 * Likeness, pictures and checks (bench/README.md, "Likeness: pictures and checks"): what faces cost
 * per picture, and what they do to the checks around them. Goals of the issue, each against the
 * same run's baseline, PASS/MISS; the last line is JSON with every figure.
 *
 *   1. face examination <= 200 ms of CPU per picture (median)        pictures.bench.ts
 *   2. name-only checks' p99 while pictures are examined <= 2x alone  check-latency.bench.ts
 *   3. enrolment >= 5 pictures per second per core                     check-latency.bench.ts
 *   4. a check with a picture through the gateway at 1M faces: p50 / p99 printed
 *
 *   pnpm exec tsc -b bench && node --expose-gc --max-old-space-size=4096 bench/dist/likeness/pictures-run.js
 *
 * It needs PostgreSQL (TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/postgres);
 * about 5 minutes on 2 cores. Knobs: see the two files' headers (BENCH_FACES, BENCH_NAMES, ...).
 */
import os from 'node:os';
import { performance } from 'node:perf_hooks';
import { CHECK_GOALS, checkLatencyBench } from './check-latency.bench';
import { loadFixturePictures, PICTURE_GOALS, picturesBench } from './pictures.bench';

const loadAverage = (): string =>
  os
    .loadavg()
    .map((v) => v.toFixed(2))
    .join(', ');

async function main(): Promise<number> {
  const started = performance.now();
  const loadAtStart = os.loadavg();
  console.log(
    `likeness, pictures and checks: Node ${process.version}, ${os.availableParallelism()} cores, ` +
      `load average ${loadAverage()} at ${new Date().toISOString()}`,
  );
  const pictures = loadFixturePictures();
  const { figures: examination, examined } = await picturesBench(pictures);
  console.log(`  (load average ${loadAverage()})`);
  const checks = await checkLatencyBench(pictures, examined);

  const goals: { label: string; value: number; goal: number; unit: string; kind: 'max' | 'min' }[] = [
    {
      label: 'face examination, CPU per picture, median',
      value: examination.examinerCpuMedianMs,
      goal: PICTURE_GOALS.examinationCpuMedianMs,
      unit: 'ms',
      kind: 'max',
    },
    {
      label: "name-only checks' p99 loaded / alone",
      value: checks.nameOnly.p99Ratio,
      goal: CHECK_GOALS.nameOnlyP99Ratio,
      unit: 'x',
      kind: 'max',
    },
    {
      label: 'enrolment, pictures per second per core',
      value: checks.enrolment.perSecondPerCore,
      goal: CHECK_GOALS.enrolmentPerSecondPerCore,
      unit: '/s',
      kind: 'min',
    },
  ];
  console.log(`\ngoals (load average ${loadAverage()}):`);
  let missed = 0;
  for (const { label, value, goal, unit, kind } of goals) {
    const pass = kind === 'max' ? value <= goal : value >= goal;
    if (!pass) missed += 1;
    console.log(
      `  ${pass ? 'PASS' : 'MISS'}  ${label.padEnd(44)} ${value.toFixed(2).padStart(8)} ${unit.padEnd(2)} ` +
        `(goal ${kind === 'max' ? '<=' : '>='} ${goal} ${unit})`,
    );
  }
  console.log(
    `        baselines: sharp's decode to 640 px alone ${examination.decodeCpuMedianMs.toFixed(1)} ms CPU (median); ` +
      `name-only p99 alone ${checks.nameOnly.alone.p99Ms.toFixed(2)} ms, loaded ${checks.nameOnly.loaded.p99Ms.toFixed(2)} ms; ` +
      `enrolment ${checks.enrolment.perSecond.toFixed(2)} pictures/s on ${checks.coresUsed} cores`,
  );
  const scale = checks.atScale;
  console.log(
    `  printed  a check with a picture at ${scale.faces.toLocaleString('en')} faces through the gateway: ` +
      `p50 ${scale.viaGateway.p50Ms.toFixed(1)} ms, p99 ${scale.viaGateway.p99Ms.toFixed(1)} ms ` +
      `(HTTP to detection p50 ${scale.direct.p50Ms.toFixed(1)} / p99 ${scale.direct.p99Ms.toFixed(1)} ms; ` +
      `the face search alone p99 ${scale.faceSearchInService.p99Ms.toFixed(2)} ms)`,
  );
  console.log(
    JSON.stringify({
      bench: 'likeness-pictures',
      seconds: (performance.now() - started) / 1000,
      loadAverageAtStart: loadAtStart,
      loadAverageAtEnd: os.loadavg(),
      examination,
      checks,
      goals: { ...PICTURE_GOALS, ...CHECK_GOALS },
      missed,
    }),
  );
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
