/**
 * Likeness benchmark (make bench-likeness): how faces are matched at the scale of a real registry.
 * Each part prints its own lines; goals are printed PASS/MISS against the same run's baseline,
 * and the last line is JSON with every figure. Parts: face search (face-search.bench.ts).
 *
 *   pnpm exec tsc -b bench && node --expose-gc --max-old-space-size=4096 bench/dist/likeness/run.js
 */
import { FACE_SEARCH_GOALS, faceSearchBench } from './face-search.bench';

function main(): number {
  const search = faceSearchBench();
  const goals: [string, number, number, string, 'max' | 'min'][] = [
    [
      'face search p99 (single thread, in-process)',
      search.searchP99Ms,
      FACE_SEARCH_GOALS.searchP99Ms,
      'ms',
      'max',
    ],
    [
      `recall of the exact matches within ${search.radius}`,
      search.recall,
      FACE_SEARCH_GOALS.recall,
      '',
      'min',
    ],
    ['index bytes', search.indexBytes / 2 ** 20, FACE_SEARCH_GOALS.indexBytes / 2 ** 20, 'MiB', 'max'],
    ['index load from the snapshot', search.loadSeconds, FACE_SEARCH_GOALS.loadSeconds, 's', 'max'],
  ];
  console.log(`\ngoals at ${search.faces.toLocaleString('en')} faces:`);
  let missed = 0;
  for (const [label, value, goal, unit, kind] of goals) {
    const pass = kind === 'max' ? value <= goal : value >= goal;
    if (!pass) missed += 1;
    console.log(
      `  ${pass ? 'PASS' : 'MISS'}  ${label.padEnd(48)} ${value.toFixed(kind === 'min' ? 4 : 2).padStart(9)} ${unit.padEnd(3)} ` +
        `(goal ${kind === 'max' ? '<=' : '>='} ${goal} ${unit})`,
    );
  }
  console.log(
    `  baseline: exact flat scan p50 ${search.exactScanP50Ms.toFixed(2)} ms, p99 ${search.exactScanP99Ms.toFixed(2)} ms ` +
      `(index: ${search.searchP50Ms.toFixed(3)} / ${search.searchP99Ms.toFixed(3)} ms, ` +
      `${(search.exactScanP99Ms / Math.max(search.searchP99Ms, 1e-6)).toFixed(0)}x faster at p99)`,
  );
  if (search.removedFoundAgain > 0) {
    console.error(`removed faces were found again: ${search.removedFoundAgain}`);
    return 1;
  }
  console.log(JSON.stringify({ bench: 'likeness', faceSearch: search, goals: FACE_SEARCH_GOALS, missed }));
  return 0;
}

process.exit(main());
