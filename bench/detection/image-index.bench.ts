/**
 * Reference-image index at scale (no database, no HTTP): how long adding BENCH_IMAGES references
 * takes (default 1,000,000), the memory they hold per reference, and bestMatch p50/p99 at the
 * detection threshold for four kinds of query:
 *   - near copy: a stored picture's whole hash with 0..17 bits flipped as the query's whole
 *     probe (a recompressed, resized or mirrored copy; 17 bits is the most the 0.86 threshold takes);
 *   - crop: a stored one-sided crop hash with 0..12 bits flipped as the query's whole probe (a copy
 *     cut on one side);
 *   - turn: a stored turned hash with 0..12 bits flipped as the query's turned-canvas probe;
 *   - unrelated: random probes (the common case: no match).
 * A sample of queries is checked against a full scan (same answer, same similarity).
 *
 * Next to each time, the work of a look-up (ReferenceImageIndex.work): bucket keys probed and
 * stored entries compared, p50/p99 per query. These do not depend on the machine's load (the
 * machine is shared and times vary 2-10x from run to run), so they are what shows whether a
 * look-up's cost grows with the references: the bench runs a small index (BENCH_SMALL_IMAGES)
 * first, then the large one, and prints the ratio.
 *
 * The fingerprints are synthetic: a uniformly random whole hash per reference, its other stored
 * hashes 16 to 40 bits away from it (a picture's crops and turns resemble it), and a query's other
 * probes 16 to 40 bits from its whole probe. Uniform bits fill the index's buckets evenly, which
 * is the best case; real pictures cluster somewhat.
 *
 * Before (v1: 3 hashes per reference, 4 look-ups per query) is the figure this bench measured
 * on the same machine just before the change (ADR 0015); the machine is shared, so compare
 * p99s with care (the README's quieter v1 run measured 0.57 ms).
 *
 *   pnpm exec tsc -b bench && node --max-old-space-size=4096 bench/dist/detection/image-index.bench.js
 *   (add --expose-gc for steadier memory figures)
 *
 * Environment: BENCH_IMAGES (default 1000000), BENCH_SMALL_IMAGES (default 10000; 0: skip),
 * BENCH_QUERIES (per kind, default 2000), BENCH_THRESHOLD (default 0.86), BENCH_SEED (default 1).
 */
import { performance } from 'node:perf_hooks';
import {
  FINGERPRINT_WORDS,
  PROBE_VARIANTS,
  PROBE_WORDS,
  REFERENCE_VARIANTS,
  fingerprintFromHex,
  fingerprintToHex,
  imageSimilarity,
  ReferenceImageIndex,
  type ImageFingerprint,
  type ImageSearchWork,
} from '@svc/image-fingerprint';

function intFromEnv(name: string, fallback: number, least = 1): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < least)
    throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

const IMAGES = intFromEnv('BENCH_IMAGES', 1_000_000);
const SMALL_IMAGES = intFromEnv('BENCH_SMALL_IMAGES', 10_000, 0);
const QUERIES = intFromEnv('BENCH_QUERIES', 2000);
const THRESHOLD = Number(process.env.BENCH_THRESHOLD ?? '0.86');
let seed = intFromEnv('BENCH_SEED', 1) >>> 0;

/** v1, measured on this machine at 1M before the change (same bench, v1 index). */
const BEFORE = {
  addUsPerImage: 27.8,
  bytesPerReference: ((751 + 304) * 2 ** 20) / 1e6,
  p99: { match: 15.7, unrelated: 11.5 },
};
/** What must hold at 1M: lookups stay within the detection check's budget, memory at most doubles. */
const GOALS = { p99Ms: 2, bytesPerReference: 2 * BEFORE.bytesPerReference };

// mulberry32: the same fingerprints on every run.
function random32(): number {
  seed = (seed + 0x6d2b79f5) >>> 0;
  let t = seed;
  t = Math.imul(t ^ (t >>> 15), t | 1);
  t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
  return (t ^ (t >>> 14)) >>> 0;
}

/** Flips `count` distinct bits of the 128-bit hash at `at`. */
function flipBits(words: Uint32Array, at: number, count: number): void {
  const flipped = new Set<number>();
  while (flipped.size < count) flipped.add(random32() % 128);
  for (const bit of flipped)
    words[at + (bit >>> 5)] = ((words[at + (bit >>> 5)] ?? 0) ^ (1 << (31 - (bit & 31)))) >>> 0;
}

/** Fills every hash after the first with a copy of the first, 16 to 40 bits away from it. */
function deriveFromFirst(words: Uint32Array): void {
  for (let at = 4; at < words.length; at += 4) {
    words.copyWithin(at, 0, 4);
    flipBits(words, at, 16 + (random32() % 25));
  }
}

function syntheticReference(): ImageFingerprint {
  const words = new Uint32Array(FINGERPRINT_WORDS);
  for (let i = 0; i < 4; i += 1) words[i] = random32();
  deriveFromFirst(words);
  return { words };
}

/** A query whose probe `probe` is `hash` (4 words) with `flips` bits flipped; other probes near its whole one. */
function queryFrom(hash: Uint32Array, probe: number, flips: number): ImageFingerprint {
  const probes = new Uint32Array(PROBE_WORDS);
  probes.set(hash.subarray(0, 4), 0);
  deriveFromFirst(probes);
  probes.set(hash.subarray(0, 4), probe * 4);
  flipBits(probes, probe * 4, flips);
  return { words: new Uint32Array(FINGERPRINT_WORDS), probes };
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
}

const verdict = (pass: boolean): string => (pass ? 'PASS' : 'MISS');

type WorkKey = 'bucketsProbed' | 'entriesWalked' | 'entriesCompared';
const WORK_KEYS: readonly WorkKey[] = ['bucketsProbed', 'entriesWalked', 'entriesCompared'];

interface KindResult {
  p50: number;
  p99: number;
  max: number;
  found: number;
  work: Record<WorkKey, { p50: number; p99: number; mean: number }>;
}

/** Builds an index of `IMAGES` references, times and counts the four kinds of query; prints all. */
function run(IMAGES: number, checkGoals: boolean): Record<string, KindResult> {
  const firstCrop = REFERENCE_VARIANTS.findIndex((v) => v.table === 'crop');
  const firstTurn = REFERENCE_VARIANTS.findIndex((v) => v.table === 'turn');
  if (global.gc) global.gc();
  const gcBefore = process.memoryUsage();
  const index = new ReferenceImageIndex();
  // The references are generated while they are added (the index copies their hashes), so the
  // memory measured is the index's own, as in detection.
  const sampleRefs: ImageFingerprint[] = [];
  // Only the add itself is timed (generating a synthetic fingerprint costs more than adding it).
  let addMs = 0;
  for (let i = 0; i < IMAGES; i += 1) {
    const fingerprint = syntheticReference();
    if (i < 64) sampleRefs.push(fingerprint);
    const started = performance.now();
    index.add(`claim_${i >> 1}`, `img_${i}`, fingerprint);
    addMs += performance.now() - started;
  }
  if (global.gc) global.gc();
  const memory = process.memoryUsage();
  const indexBytes = memory.heapUsed - gcBefore.heapUsed + (memory.arrayBuffers - gcBefore.arrayBuffers);
  const bytesPerReference = indexBytes / IMAGES;

  // Queries are built from the first 64 references (kept aside), so the expected image is known.
  const source = (): { ref: ImageFingerprint; id: number } => {
    const id = random32() % sampleRefs.length;
    return { ref: sampleRefs[id] ?? syntheticReference(), id };
  };
  const kinds: Record<string, () => { query: ImageFingerprint; expected: number | null }> = {
    'near copy': () => {
      const { ref, id } = source();
      return { query: queryFrom(ref.words.subarray(0, 4), 0, random32() % 18), expected: id };
    },
    crop: () => {
      const { ref, id } = source();
      const at = (firstCrop + (random32() % 14)) * 4;
      return { query: queryFrom(ref.words.subarray(at, at + 4), 0, random32() % 13), expected: id };
    },
    turn: () => {
      const { ref, id } = source();
      const variant = firstTurn + (random32() % 6);
      const at = variant * 4;
      // The turned-canvas probe of the same angle (the only one paired with this turn).
      const stored = REFERENCE_VARIANTS[variant];
      const degrees = stored && 'degrees' in stored ? Math.abs(stored.degrees) : 0;
      const probe = PROBE_VARIANTS.findIndex((p) => 'turnedCanvas' in p && p.turnedCanvas === degrees);
      return { query: queryFrom(ref.words.subarray(at, at + 4), probe, random32() % 13), expected: id };
    },
    unrelated: () => {
      const words = new Uint32Array(4);
      for (let i = 0; i < 4; i += 1) words[i] = random32();
      return { query: queryFrom(words, 0, 0), expected: null };
    },
  };

  const results: Record<string, KindResult> = {};
  let mismatches = 0;
  for (const [kind, make] of Object.entries(kinds)) {
    const times: number[] = [];
    const work: Record<WorkKey, number[]> = { bucketsProbed: [], entriesWalked: [], entriesCompared: [] };
    let found = 0;
    for (let q = 0; q < QUERIES; q += 1) {
      const { query, expected } = make();
      const before: ImageSearchWork = { ...index.work };
      const started = performance.now();
      const match = index.bestMatch(query, THRESHOLD);
      times.push(performance.now() - started);
      for (const key of WORK_KEYS) work[key].push(index.work[key] - before[key]);
      if (expected === null ? match === null : match?.imageId === `img_${expected}`) found += 1;
      // A sample is checked against a full scan of the kept references (the query was built from one).
      if (q < 10 && expected !== null) {
        let best = 0;
        for (const ref of sampleRefs) best = Math.max(best, imageSimilarity(query, ref));
        if (match === null || best > match.similarity) mismatches += 1;
      }
    }
    times.sort((a, b) => a - b);
    const summary = (values: number[]): { p50: number; p99: number; mean: number } => {
      const sorted = [...values].sort((a, b) => a - b);
      const mean = sorted.reduce((a, b) => a + b, 0) / Math.max(1, sorted.length);
      return { p50: percentile(sorted, 0.5), p99: percentile(sorted, 0.99), mean };
    };
    results[kind] = {
      p50: percentile(times, 0.5),
      p99: percentile(times, 0.99),
      max: times.at(-1) ?? NaN,
      found,
      work: {
        bucketsProbed: summary(work.bucketsProbed),
        entriesWalked: summary(work.entriesWalked),
        entriesCompared: summary(work.entriesCompared),
      },
    };
  }

  // The hex round trip is what detection stores: make sure it is lossless here too.
  const sample = sampleRefs[0];
  const roundTrip = sample
    ? fingerprintFromHex(fingerprintToHex(sample)).words.every((w, i) => w === sample.words[i])
    : false;

  const matchP99 = Math.max(...['near copy', 'crop', 'turn'].map((k) => results[k]?.p99 ?? Infinity));
  const unrelatedP99 = results.unrelated?.p99 ?? Infinity;
  console.log(
    `reference-image index: ${IMAGES} references (${REFERENCE_VARIANTS.length} stored hashes each), ` +
      `${PROBE_VARIANTS.length} probes a query, threshold ${THRESHOLD}, ${QUERIES} queries per kind`,
  );
  console.log(
    `add      ${(addMs / 1000).toFixed(2)} s total, ${((addMs * 1000) / IMAGES).toFixed(2)} µs per reference (before ${BEFORE.addUsPerImage} µs)`,
  );
  console.log(
    `memory   index ${mib(indexBytes)} = ${bytesPerReference.toFixed(0)} bytes per reference ` +
      `(hashes ${mib(index.hashBytes)}); heap ${mib(memory.heapUsed)}, array buffers ${mib(memory.arrayBuffers)}, RSS ${mib(memory.rss)}`,
  );
  for (const [kind, r] of Object.entries(results)) {
    const outcome = kind === 'unrelated' ? `${r.found} null` : `${r.found} found`;
    console.log(
      `query    ${kind.padEnd(10)} p50 ${r.p50.toFixed(3)} ms  p99 ${r.p99.toFixed(3)} ms  max ${r.max.toFixed(3)} ms  ${outcome}/${QUERIES}  ` +
        `work (p50/p99) buckets ${r.work.bucketsProbed.p50}/${r.work.bucketsProbed.p99}, ` +
        `entries walked ${r.work.entriesWalked.p50}/${r.work.entriesWalked.p99}, hashes compared ${r.work.entriesCompared.p50}/${r.work.entriesCompared.p99}`,
    );
  }
  console.log(
    `checked  ${mismatches === 0 ? 'ok' : 'MISMATCH'}: 30 queries against a scan of their source; hex round trip ${roundTrip ? 'ok' : 'BROKEN'}`,
  );
  const checks = [
    {
      figure: 'matching lookup p99',
      value: matchP99,
      before: BEFORE.p99.match,
      goal: GOALS.p99Ms,
      unit: 'ms',
    },
    {
      figure: 'unrelated lookup p99',
      value: unrelatedP99,
      before: BEFORE.p99.unrelated,
      goal: GOALS.p99Ms,
      unit: 'ms',
    },
    {
      figure: 'bytes per reference',
      value: bytesPerReference,
      before: BEFORE.bytesPerReference,
      goal: GOALS.bytesPerReference,
      unit: 'B',
    },
  ];
  for (const c of checkGoals ? checks : []) {
    console.log(
      `${verdict(c.value <= c.goal)}     ${c.figure.padEnd(22)} ${c.value.toFixed(c.unit === 'ms' ? 3 : 0)} ${c.unit} ` +
        `(before ${c.before.toFixed(c.unit === 'ms' ? 1 : 0)}, goal <= ${c.goal.toFixed(c.unit === 'ms' ? 1 : 0)})`,
    );
  }
  console.log(
    JSON.stringify({
      images: IMAGES,
      threshold: THRESHOLD,
      addMs,
      bytesPerReference,
      heapUsed: memory.heapUsed,
      arrayBuffers: memory.arrayBuffers,
      rss: memory.rss,
      queries: results,
      checks: checks.map((c) => ({ ...c, pass: c.value <= c.goal })),
      mismatches,
    }),
  );
  if (mismatches > 0 || !roundTrip) process.exitCode = 1;
  return results;
}

function main(): void {
  const small = SMALL_IMAGES > 0 && SMALL_IMAGES < IMAGES ? run(SMALL_IMAGES, false) : undefined;
  if (small && global.gc) global.gc();
  const large = run(IMAGES, true);
  if (!small) return;
  // Work per look-up, large over small: near 1 when it does not grow with the references.
  console.log(`growth   work per look-up at ${IMAGES} over ${SMALL_IMAGES} references (mean, p99):`);
  for (const [kind, r] of Object.entries(large)) {
    const s = small[kind];
    if (!s) continue;
    const ratio = (key: WorkKey, at: 'mean' | 'p99'): string =>
      (r.work[key][at] / Math.max(1, s.work[key][at])).toFixed(1);
    console.log(
      `         ${kind.padEnd(10)} buckets x${ratio('bucketsProbed', 'mean')} / x${ratio('bucketsProbed', 'p99')}  ` +
        `walked x${ratio('entriesWalked', 'mean')} / x${ratio('entriesWalked', 'p99')}  ` +
        `compared x${ratio('entriesCompared', 'mean')} / x${ratio('entriesCompared', 'p99')}  ` +
        `(mean walked ${s.work.entriesWalked.mean.toFixed(0)} -> ${r.work.entriesWalked.mean.toFixed(0)}, ` +
        `compared ${s.work.entriesCompared.mean.toFixed(0)} -> ${r.work.entriesCompared.mean.toFixed(0)})`,
    );
  }
}

main();
