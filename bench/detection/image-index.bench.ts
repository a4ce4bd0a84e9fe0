/**
 * Reference-image index at scale (no database, no HTTP): how long adding BENCH_IMAGES fingerprints
 * takes (default 1,000,000), the memory they hold, and bestMatch p50/p99 at the detection
 * threshold for three kinds of query:
 *   - near copy: a stored picture's whole hash with 0..17 bits flipped (a recompressed, resized
 *     copy; 17 bits is the most the 0.86 threshold takes);
 *   - crop: a stored picture's 4 % crop hash with 0..12 bits flipped, as the query's whole hash
 *     (a cropped copy);
 *   - unrelated: a random fingerprint (the common case: no match).
 * A sample of queries is checked against a full scan (same answer, same similarity).
 *
 * The fingerprints are synthetic: uniformly random whole hashes, crop hashes 16 bits away from
 * their whole hash (what real crops measure, README of @svc/image-fingerprint). Uniform bits fill
 * the index's buckets evenly, which is the best case; real pictures cluster somewhat.
 *
 *   pnpm exec tsc -b bench && node --max-old-space-size=4096 bench/dist/detection/image-index.bench.js
 *
 * Environment: BENCH_IMAGES (default 1000000), BENCH_QUERIES (per kind, default 2000),
 * BENCH_THRESHOLD (default 0.86), BENCH_SEED (default 1).
 */
import { performance } from 'node:perf_hooks';
import {
  fingerprintFromHex,
  fingerprintToHex,
  imageSimilarity,
  ReferenceImageIndex,
  type ImageFingerprint,
} from '@svc/image-fingerprint';

function intFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

const IMAGES = intFromEnv('BENCH_IMAGES', 1_000_000);
const QUERIES = intFromEnv('BENCH_QUERIES', 2000);
const THRESHOLD = Number(process.env.BENCH_THRESHOLD ?? '0.86');
let seed = intFromEnv('BENCH_SEED', 1) >>> 0;

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

/** Crop hashes 16 bits away from the whole hash (words 0..3). */
function deriveCrops(words: Uint32Array): ImageFingerprint {
  for (const at of [4, 8]) {
    words.copyWithin(at, 0, 4);
    flipBits(words, at, 16);
  }
  return { words };
}

function syntheticFingerprint(): ImageFingerprint {
  const words = new Uint32Array(12);
  for (let i = 0; i < 4; i += 1) words[i] = random32();
  return deriveCrops(words);
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? NaN;
}

function mib(bytes: number): string {
  return `${(bytes / 1024 / 1024).toFixed(0)} MiB`;
}

function main(): void {
  const gcBefore = process.memoryUsage();
  const stored: ImageFingerprint[] = [];
  for (let i = 0; i < IMAGES; i += 1) stored.push(syntheticFingerprint());

  const index = new ReferenceImageIndex();
  const addStarted = performance.now();
  for (let i = 0; i < IMAGES; i += 1) {
    const fingerprint = stored[i];
    if (fingerprint) index.add(`claim_${i >> 1}`, `img_${i}`, fingerprint);
  }
  const addMs = performance.now() - addStarted;
  const memory = process.memoryUsage();

  const kinds: Record<string, () => { query: ImageFingerprint; expected: number | null }> = {
    'near copy': () => {
      const source = random32() % IMAGES;
      const words = Uint32Array.from(stored[source]?.words ?? new Uint32Array(12));
      flipBits(words, 0, random32() % 18);
      return { query: deriveCrops(words), expected: source };
    },
    crop: () => {
      const source = random32() % IMAGES;
      const words = new Uint32Array(12);
      words.set((stored[source]?.words ?? new Uint32Array(12)).subarray(4, 8), 0);
      flipBits(words, 0, random32() % 13);
      return { query: deriveCrops(words), expected: source };
    },
    unrelated: () => ({ query: syntheticFingerprint(), expected: null }),
  };

  const results: Record<string, { p50: number; p99: number; max: number; found: number }> = {};
  let mismatches = 0;
  for (const [kind, make] of Object.entries(kinds)) {
    const times: number[] = [];
    let found = 0;
    for (let q = 0; q < QUERIES; q += 1) {
      const { query, expected } = make();
      const started = performance.now();
      const match = index.bestMatch(query, THRESHOLD);
      times.push(performance.now() - started);
      if (match !== null && (expected === null || match.imageId === `img_${expected}`)) found += 1;
      // A sample is checked against a full scan: the index must return the scan's answer.
      if (q < 10) {
        let best: { similarity: number; id: number } | null = null;
        for (let i = 0; i < IMAGES; i += 1) {
          const fingerprint = stored[i];
          const similarity = fingerprint ? imageSimilarity(query, fingerprint) : 0;
          if (similarity >= THRESHOLD && (best === null || similarity > best.similarity))
            best = { similarity, id: i };
        }
        if ((best?.similarity ?? null) !== (match?.similarity ?? null)) mismatches += 1;
      }
    }
    times.sort((a, b) => a - b);
    results[kind] = {
      p50: percentile(times, 0.5),
      p99: percentile(times, 0.99),
      max: times.at(-1) ?? NaN,
      found,
    };
  }

  // The hex round trip is what detection stores: make sure it is lossless here too.
  const sample = stored[0];
  const roundTrip = sample
    ? imageSimilarity(sample, fingerprintFromHex(fingerprintToHex(sample))) === 1
    : false;

  console.log(
    `reference-image index: ${IMAGES} fingerprints, threshold ${THRESHOLD}, ${QUERIES} queries per kind`,
  );
  console.log(
    `add      ${(addMs / 1000).toFixed(2)} s total, ${((addMs * 1000) / IMAGES).toFixed(2)} µs per image`,
  );
  console.log(
    `memory   heap ${mib(memory.heapUsed - gcBefore.heapUsed)} (fingerprints and index), ` +
      `array buffers ${mib(memory.arrayBuffers)}, RSS ${mib(memory.rss)}`,
  );
  for (const [kind, r] of Object.entries(results)) {
    const outcome = kind === 'unrelated' ? `${QUERIES - r.found} null` : `${r.found} found`;
    console.log(
      `query    ${kind.padEnd(10)} p50 ${r.p50.toFixed(3)} ms  p99 ${r.p99.toFixed(3)} ms  max ${r.max.toFixed(3)} ms  ${outcome}/${QUERIES}`,
    );
  }
  console.log(
    `checked  ${mismatches === 0 ? 'ok' : 'MISMATCH'}: 30 queries against a full scan; hex round trip ${roundTrip ? 'ok' : 'BROKEN'}`,
  );
  console.log(
    JSON.stringify({
      images: IMAGES,
      threshold: THRESHOLD,
      addMs,
      heapUsed: memory.heapUsed,
      rss: memory.rss,
      queries: results,
      mismatches,
    }),
  );
  if (mismatches > 0 || !roundTrip) process.exitCode = 1;
}

main();
