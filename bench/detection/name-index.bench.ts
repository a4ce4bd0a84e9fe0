/**
 * The name index alone (no database, no HTTP): the work and the time of one check at the scale of
 * a real registry, in one process. Builds a NameIndex of BENCH_IDENTITIES synthetic identities
 * (default 100,000) with 3 variations each, the same names `make bench-detection` seeds, then
 * checks exact names, one-typo names, one-typo names wrapped in other words and unknown names.
 *
 * Timings on a shared machine move 2-10x with its load, so the bench also prints figures that do
 * not depend on it: per check, the protected words followed, the postings read, the names scored
 * with the full scorer and the word pairs compared (NameIndex.work). The same-run baseline is the
 * same index searched without ranking (`rankCandidates = false`: every candidate scored, as before ADR 0007's
 * ranking); every answer of the two must be the same (the bench exits 1 otherwise).
 *
 *   pnpm exec tsc -b bench && node bench/dist/detection/name-index.bench.js
 *   BENCH_IDENTITIES=1000000 node --max-old-space-size=4096 bench/dist/detection/name-index.bench.js
 *
 * Environment: BENCH_IDENTITIES (default 100000), BENCH_QUERIES (per kind, default 2000).
 */
import { performance } from 'node:perf_hooks';
import { NameIndex, type SearchOutcome, type SearchWork } from '@svc/name-matching';
import { personName, prng, typo, unknownName, variationsOf, WRAPPERS } from './synthetic-names';

function intFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

const IDENTITIES = intFromEnv('BENCH_IDENTITIES', 100_000);
const QUERIES = intFromEnv('BENCH_QUERIES', 2000);

/** What must hold per one-typo check (wrapped included): the scorer's work is bounded. */
const GOALS = { candidatesScoredP99: 64, inServiceP99Ms: 2 };

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.ceil(p * sorted.length) - 1)] ?? NaN;
}

interface Figures {
  ms: number[];
  work: Record<keyof SearchWork, number[]>;
}

const WORK_KEYS = [
  'tokensVisited',
  'postingsRead',
  'namesBounded',
  'candidatesScored',
  'wordComparisons',
] as const;

function newFigures(): Figures {
  return {
    ms: [],
    work: {
      searches: [],
      tokensVisited: [],
      postingsRead: [],
      namesBounded: [],
      candidatesScored: [],
      wordComparisons: [],
    },
  };
}

function measure(index: NameIndex, rank: boolean, query: string, into: Figures): SearchOutcome {
  index.rankCandidates = rank;
  const before = { ...index.work };
  const started = performance.now();
  const outcome = index.search(query);
  into.ms.push(performance.now() - started);
  for (const key of WORK_KEYS) into.work[key].push(index.work[key] - before[key]);
  return outcome;
}

function sameOutcome(a: SearchOutcome, b: SearchOutcome): boolean {
  return JSON.stringify(a) === JSON.stringify(b);
}

function line(label: string, f: Figures): string {
  const p = (values: number[], q: number) =>
    percentile(
      [...values].sort((x, y) => x - y),
      q,
    );
  const work = WORK_KEYS.map(
    (key) => `${key} ${p(f.work[key], 0.5).toFixed(0)}/${p(f.work[key], 0.99).toFixed(0)}`,
  ).join('  ');
  return `${label.padEnd(26)} p50 ${p(f.ms, 0.5).toFixed(3)} ms  p99 ${p(f.ms, 0.99).toFixed(3)} ms   (p50/p99) ${work}`;
}

function main(): void {
  const random = prng(20261122);
  const names: string[] = [];
  const index = new NameIndex();
  const buildStart = performance.now();
  for (let n = 0; n < IDENTITIES; n++) {
    const name = personName(random);
    names.push(name);
    const identity = {
      id: `claim_bench${String(n).padStart(9, '0')}`,
      names: [name, ...variationsOf(random, name)],
    };
    index.add(identity);
  }
  const buildSeconds = (performance.now() - buildStart) / 1000;
  // As a replica does once its index is loaded (ADR 0007): lookups then read runs of memory.
  const packStart = performance.now();
  index.pack();
  console.log(
    `name index: ${IDENTITIES.toLocaleString('en')} identities, ${index.storedNames.toLocaleString('en')} names, ` +
      `${index.vocabularySize.toLocaleString('en')} words; built in ${buildSeconds.toFixed(1)} s, ` +
      `packed in ${((performance.now() - packStart) / 1000).toFixed(1)} s`,
  );
  const pick = () => names[Math.floor(random() * names.length)] ?? 'Ada Lovelace';
  const wrapped = () =>
    (WRAPPERS[Math.floor(random() * WRAPPERS.length)] ?? 'X AI').replace('X', typo(random, pick()));
  const kinds: [string, () => string][] = [
    ['exact', pick],
    ['one typo', () => typo(random, pick())],
    ['one typo, wrapped', wrapped],
    ['unknown', () => unknownName(random)],
  ];
  // Warm the JIT on both.
  for (let i = 0; i < 300; i++) {
    const q = i % 2 ? wrapped() : typo(random, pick());
    measure(index, true, q, newFigures());
    measure(index, false, q, newFigures());
  }
  let differences = 0;
  const typoRanked = newFigures();
  const typoUnranked = newFigures();
  for (const [kind, make] of kinds) {
    const withRanking = newFigures();
    const without = newFigures();
    let found = 0;
    for (let q = 0; q < QUERIES; q++) {
      const query = make();
      // Alternate which goes first, so that neither always meets a warm cache.
      const a = q % 2 ? measure(index, true, query, withRanking) : undefined;
      const b = measure(index, false, query, without);
      const c = a ?? measure(index, true, query, withRanking);
      if (!sameOutcome(c, b)) {
        differences += 1;
        if (differences <= 5)
          console.log(`  DIFFERENT answer for "${query}": ${JSON.stringify(c)} vs ${JSON.stringify(b)}`);
      }
      if (c.best && c.best.confidence >= 0.78) found += 1;
      if (kind.startsWith('one typo')) {
        for (const [from, to] of [
          [withRanking, typoRanked],
          [without, typoUnranked],
        ] as const) {
          to.ms.push(from.ms.at(-1) ?? 0);
          for (const key of WORK_KEYS) to.work[key].push(from.work[key].at(-1) ?? 0);
        }
      }
    }
    console.log(`${kind}: ${found}/${QUERIES} matched at MODERATE`);
    console.log(line('  ranked', withRanking));
    console.log(line('  unranked (baseline)', without));
  }
  const sorted = (values: number[]) => [...values].sort((x, y) => x - y);
  const candidatesP99 = percentile(sorted(typoRanked.work.candidatesScored), 0.99);
  const baselineCandidatesP99 = percentile(sorted(typoUnranked.work.candidatesScored), 0.99);
  const msP99 = percentile(sorted(typoRanked.ms), 0.99);
  const baselineMsP99 = percentile(sorted(typoUnranked.ms), 0.99);
  const verdict = (pass: boolean) => (pass ? 'PASS' : 'MISS');
  console.log(`\none typo (wrapped included) at ${IDENTITIES.toLocaleString('en')} identities:`);
  console.log(
    `  ${verdict(candidatesP99 <= GOALS.candidatesScoredP99)}  names scored per check p99 ${candidatesP99} ` +
      `(baseline ${baselineCandidatesP99}, goal <= ${GOALS.candidatesScoredP99})`,
  );
  console.log(
    `  ${verdict(msP99 <= GOALS.inServiceP99Ms)}  in-service p99 ${msP99.toFixed(3)} ms ` +
      `(baseline ${baselineMsP99.toFixed(3)} ms, goal <= ${GOALS.inServiceP99Ms} ms)`,
  );
  console.log(`  answers different from the baseline: ${differences}`);
  console.log(
    JSON.stringify({
      bench: 'name-index',
      identities: IDENTITIES,
      names: index.storedNames,
      candidatesScoredP99: candidatesP99,
      baselineCandidatesScoredP99: baselineCandidatesP99,
      oneTypoP99Ms: msP99,
      baselineOneTypoP99Ms: baselineMsP99,
      differences,
    }),
  );
  if (differences > 0) process.exitCode = 1;
}

main();
