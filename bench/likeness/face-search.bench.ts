/**
 * Face search at scale (no database, no HTTP): the enrolled-face index (FaceIndex) at
 * BENCH_FACES synthetic faces (default 1,000,000; synthetic-faces.ts says how they are made).
 *
 * Measures: the build (adds, then the rebuild that trains the lists), the index's bytes, the
 * snapshot (toParts + a file written section by section, then read back and fromParts, as the
 * detection service's snapshot store does), search p50/p99 at radius BENCH_RADIUS (default 0.5)
 * over BENCH_QUERIES queries (default 1,000: half new pictures of enrolled people, half
 * strangers), and recall: the share of the exact matches (brute force over the float32
 * descriptors, every face) that the index found. The exact flat scan's own p50/p99 is the
 * same-run baseline. Then a sweep of probes (recall against time; all lists = an int8 flat scan),
 * and live changes: enrolments, removals, and that a removed person is never found again.
 *
 * Environment: BENCH_FACES (default 1000000), BENCH_QUERIES (default 1000), BENCH_RADIUS (0.5),
 * BENCH_LISTS (default: the index's rule), BENCH_PROBES (default: the index's rule),
 * BENCH_SWEEP (1: sweep probes, the default; 0: skip), BENCH_SEED (default 20261129),
 * BENCH_FACE_MODEL (unit, the default, or measured: synthetic-faces.ts).
 */
import { closeSync, mkdtempSync, openSync, readSync, rmSync, statSync, writeSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { defaultProbes, FaceIndex, type FaceIndexParts } from '@svc/face-engine';
import { prng, SyntheticFaces } from './synthetic-faces';

const DIM = 128;

function intFromEnv(name: string, fallback: number, least = 1): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < least)
    throw new Error(`${name} must be an integer >= ${least}, got "${raw}"`);
  return value;
}

function percentile(samples: number[], p: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

const ms = (value: number) => `${value.toFixed(3).padStart(8)} ms`;
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(0)} MiB`;
const ownerKey = (person: number) => `claim_${person.toString(36).padStart(8, '0')}`;

/** What must hold at 1M faces (the brief of the face index). */
export const FACE_SEARCH_GOALS = {
  searchP99Ms: 5,
  recall: 0.99,
  indexBytes: 2 ** 30,
  loadSeconds: 15,
} as const;

export interface FaceSearchFigures {
  model: string;
  faces: number;
  owners: number;
  lists: number;
  probes: number;
  radius: number;
  addSeconds: number;
  rebuildSeconds: number;
  indexBytes: number;
  bytesPerFace: number;
  toPartsSeconds: number;
  snapshotWriteSeconds: number;
  snapshotBytes: number;
  loadSeconds: number;
  snapshotReadSeconds: number;
  searchP50Ms: number;
  searchP99Ms: number;
  /** CPU time of a search (process.cpuUsage, microsecond resolution): what a quiet machine would see. */
  searchCpuP50Ms: number;
  searchCpuP99Ms: number;
  enrolledP99Ms: number;
  strangerP99Ms: number;
  exactScanP50Ms: number;
  exactScanP99Ms: number;
  exactMatches: number;
  recall: number;
  enrolledQueriesWithMatch: number;
  strangerQueriesWithMatch: number;
  descriptorNormMin: number;
  descriptorNormMax: number;
  sweep: { probes: number; recall: number; recallWithoutOwnerFaces: number; p50Ms: number; p99Ms: number }[];
  addP99Ms: number;
  removeOwnerP99Ms: number;
  removedFoundAgain: number;
}

/** The snapshot as one file, each part in its own 8-byte-aligned section (as detection's store). */
function writeSnapshot(file: string, parts: FaceIndexParts): number {
  const sections = Object.entries(parts).map(([name, part]) => ({
    name,
    kind: part instanceof Uint32Array ? 'u32' : 'bytes',
    bytes: part.byteLength,
  }));
  const header = Buffer.from(JSON.stringify(sections));
  const fd = openSync(file, 'w');
  try {
    const lead = Buffer.alloc(8);
    lead.writeUInt32LE(header.length, 0);
    writeSync(fd, lead);
    writeSync(fd, header);
    writeSync(fd, Buffer.alloc((8 - (header.length % 8)) % 8));
    for (const part of Object.values(parts)) {
      writeSync(fd, Buffer.from(part.buffer, part.byteOffset, part.byteLength));
      writeSync(fd, Buffer.alloc((8 - (part.byteLength % 8)) % 8));
    }
  } finally {
    closeSync(fd);
  }
  return statSync(file).size;
}

function readSnapshot(file: string): FaceIndexParts {
  const fd = openSync(file, 'r');
  try {
    const lead = Buffer.alloc(8);
    readSync(fd, lead, 0, 8, 0);
    const headerLength = lead.readUInt32LE(0);
    const header = Buffer.alloc(headerLength);
    readSync(fd, header, 0, headerLength, 8);
    const sections = JSON.parse(header.toString('utf8')) as { name: string; kind: string; bytes: number }[];
    let at = 8 + headerLength + ((8 - (headerLength % 8)) % 8);
    const parts: FaceIndexParts = {};
    for (const section of sections) {
      // Each section in memory of its own (what the index keeps), read in slices of 1 GiB at most.
      const memory = Buffer.allocUnsafeSlow(section.bytes);
      for (let done = 0; done < section.bytes;) {
        const read = readSync(fd, memory, done, Math.min(2 ** 30, section.bytes - done), at + done);
        if (read <= 0) throw new Error(`snapshot ${file} ends inside ${section.name}`);
        done += read;
      }
      parts[section.name] =
        section.kind === 'u32'
          ? new Uint32Array(memory.buffer, memory.byteOffset, section.bytes / 4)
          : memory;
      at += section.bytes + ((8 - (section.bytes % 8)) % 8);
    }
    return parts;
  } finally {
    closeSync(fd);
  }
}

/** Exact range search over every face (float32 numbers, float64 sums): the baseline and the truth. */
function exactSearch(
  descriptors: Float32Array,
  faces: number,
  query: Float32Array,
  radius: number,
): number[] {
  const bound = radius * radius;
  const found: number[] = [];
  for (let i = 0, base = 0; i < faces; i++, base += DIM) {
    let s = 0;
    let d = 0;
    for (; d < 64; d++) {
      const t = (query[d] ?? 0) - (descriptors[base + d] ?? 0);
      s += t * t;
    }
    if (s > bound) continue;
    for (; d < DIM; d++) {
      const t = (query[d] ?? 0) - (descriptors[base + d] ?? 0);
      s += t * t;
    }
    if (s <= bound) found.push(i + 1);
  }
  return found;
}

/** Runs the face search bench and prints its lines; answers the figures. */
export function faceSearchBench(): FaceSearchFigures {
  const faces = intFromEnv('BENCH_FACES', 1_000_000);
  const queries = intFromEnv('BENCH_QUERIES', 1000, 2);
  const radius = Number(process.env.BENCH_RADIUS ?? '0.5');
  const seed = intFromEnv('BENCH_SEED', 20261129);
  const model = process.env.BENCH_FACE_MODEL ?? 'unit';
  if (model !== 'unit' && model !== 'measured')
    throw new Error(`BENCH_FACE_MODEL must be unit or measured, got "${model}"`);
  const world = new SyntheticFaces(seed, model);
  const random = prng(seed + 1);

  console.log(`face search: generating ${faces.toLocaleString('en')} faces (${model} model) ...`);
  let started = performance.now();
  const descriptors = new Float32Array(faces * DIM);
  const personOf = new Uint32Array(faces);
  let persons = 0;
  for (let i = 0; i < faces; persons++) {
    const count = Math.min(faces - i, 1 + Math.floor(random() * 5));
    world.picturesOf(persons, count, random, descriptors, i * DIM);
    personOf.fill(persons, i, i + count);
    i += count;
  }
  let normMin = Number.POSITIVE_INFINITY;
  let normMax = 0;
  for (let i = 0; i < faces; i += 97) {
    let s = 0;
    for (let d = 0; d < DIM; d++) s += (descriptors[i * DIM + d] ?? 0) ** 2;
    normMin = Math.min(normMin, Math.sqrt(s));
    normMax = Math.max(normMax, Math.sqrt(s));
  }
  console.log(
    `  ${persons.toLocaleString('en')} people, generated in ${((performance.now() - started) / 1000).toFixed(1)} s; ` +
      `descriptor norms ${normMin.toFixed(3)}..${normMax.toFixed(3)} (a sample)`,
  );

  // Build: every face added (one flat list), then a rebuild trains the lists.
  started = performance.now();
  let index = new FaceIndex();
  for (let i = 0; i < faces; i++)
    index.add(i + 1, ownerKey(personOf[i] ?? 0), descriptors.subarray(i * DIM, i * DIM + DIM));
  const addSeconds = (performance.now() - started) / 1000;
  started = performance.now();
  const lists = process.env.BENCH_LISTS ? intFromEnv('BENCH_LISTS', 1) : undefined;
  index.rebuild(lists === undefined ? {} : { lists });
  const rebuildSeconds = (performance.now() - started) / 1000;
  const indexBytesBuilt = index.bytes();
  console.log(
    `  build: ${addSeconds.toFixed(1)} s of adds + ${rebuildSeconds.toFixed(1)} s of rebuild (training) into ` +
      `${index.listTotal.toLocaleString('en')} lists; ${mib(indexBytesBuilt)}`,
  );

  // Snapshot: parts, a file, read back into a new index (the old one dropped first).
  const dir = mkdtempSync(path.join(os.tmpdir(), 'bench-likeness-'));
  const file = path.join(dir, 'face-index.snapshot');
  started = performance.now();
  const parts = index.toParts();
  const toPartsSeconds = (performance.now() - started) / 1000;
  started = performance.now();
  const snapshotBytes = writeSnapshot(file, parts);
  const snapshotWriteSeconds = (performance.now() - started) / 1000;
  index = new FaceIndex();
  global.gc?.();
  started = performance.now();
  const read = readSnapshot(file);
  const readSeconds = (performance.now() - started) / 1000;
  index = FaceIndex.fromParts(read);
  const loadSeconds = (performance.now() - started) / 1000;
  rmSync(dir, { recursive: true, force: true });
  global.gc?.();
  const indexBytes = index.bytes();
  console.log(
    `  snapshot: toParts ${toPartsSeconds.toFixed(2)} s, ${mib(snapshotBytes)} written in ${snapshotWriteSeconds.toFixed(1)} s, ` +
      `loaded in ${loadSeconds.toFixed(1)} s (${readSeconds.toFixed(1)} s of it reading the file); index ${mib(indexBytes)} (${(indexBytes / faces).toFixed(0)} B per face), ` +
      `rss ${mib(process.memoryUsage().rss)}`,
  );

  // Queries: half new pictures of enrolled people, half strangers.
  const queryVectors = new Float32Array(queries * DIM);
  const enrolledQueries = Math.floor(queries / 2);
  for (let q = 0; q < queries; q++) {
    const person = q < enrolledQueries ? Math.floor(random() * persons) : persons + 1 + q;
    world.picturesOf(person, 1, random, queryVectors, q * DIM);
  }
  const query = (q: number) => queryVectors.subarray(q * DIM, q * DIM + DIM);

  // The truth and the baseline: an exact flat scan per query.
  const exact: number[][] = [];
  const exactTimes: number[] = [];
  for (let q = 0; q < queries; q++) {
    const t0 = performance.now();
    exact.push(exactSearch(descriptors, faces, query(q), radius));
    exactTimes.push(performance.now() - t0);
  }
  const exactMatches = exact.reduce((n, found) => n + found.length, 0);
  console.log(
    `  exact flat scan (float32): p50 ${ms(percentile(exactTimes, 50))}  p99 ${ms(percentile(exactTimes, 99))}; ` +
      `${exactMatches.toLocaleString('en')} matches within ${radius}`,
  );

  const probesDefault = defaultProbes(index.listTotal);
  const probes = process.env.BENCH_PROBES ? intFromEnv('BENCH_PROBES', 1) : probesDefault;
  const measure = (probeCount: number, count: number, ownerFaces = true) => {
    const times: number[] = [];
    // CPU time too: on a shared machine the wall time's tail is mostly waiting for a core.
    const cpuTimes: number[] = [];
    let found = 0;
    let expected = 0;
    let enrolledHits = 0;
    let strangerHits = 0;
    for (let q = 0; q < count; q++) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      const results = index.search(query(q), radius, 1000, { probes: probeCount, ownerFaces });
      times.push(performance.now() - t0);
      const cpu = process.cpuUsage(c0);
      cpuTimes.push((cpu.user + cpu.system) / 1000);
      const truth = new Set(exact[q]);
      expected += truth.size;
      for (const r of results) if (truth.has(r.faceId)) found += 1;
      if (results.length > 0 && q < enrolledQueries) enrolledHits += 1;
      else if (results.length > 0) strangerHits += 1;
    }
    return { times, cpuTimes, recall: expected === 0 ? 1 : found / expected, enrolledHits, strangerHits };
  };
  measure(probes, queries); // a warm-up pass (the JIT, the caches), not counted
  const main = measure(probes, queries);
  const figures: FaceSearchFigures = {
    model,
    faces,
    owners: index.ownerCount,
    lists: index.listTotal,
    probes,
    radius,
    addSeconds,
    rebuildSeconds,
    indexBytes,
    bytesPerFace: indexBytes / faces,
    toPartsSeconds,
    snapshotWriteSeconds,
    snapshotBytes,
    loadSeconds,
    snapshotReadSeconds: readSeconds,
    searchP50Ms: percentile(main.times, 50),
    searchP99Ms: percentile(main.times, 99),
    searchCpuP50Ms: percentile(main.cpuTimes, 50),
    searchCpuP99Ms: percentile(main.cpuTimes, 99),
    enrolledP99Ms: percentile(main.times.slice(0, enrolledQueries), 99),
    strangerP99Ms: percentile(main.times.slice(enrolledQueries), 99),
    exactScanP50Ms: percentile(exactTimes, 50),
    exactScanP99Ms: percentile(exactTimes, 99),
    exactMatches,
    recall: main.recall,
    enrolledQueriesWithMatch: main.enrolledHits,
    strangerQueriesWithMatch: main.strangerHits,
    descriptorNormMin: normMin,
    descriptorNormMax: normMax,
    sweep: [],
    addP99Ms: 0,
    removeOwnerP99Ms: 0,
    removedFoundAgain: 0,
  };
  console.log(
    `  index search (${probes} of ${index.listTotal} lists): p50 ${ms(figures.searchP50Ms)}  p99 ${ms(figures.searchP99Ms)} ` +
      `(CPU time p50 ${ms(figures.searchCpuP50Ms)}  p99 ${ms(figures.searchCpuP99Ms)}) ` +
      `(enrolled ${ms(figures.enrolledP99Ms)}, strangers ${ms(figures.strangerP99Ms)}); recall ${figures.recall.toFixed(4)}; ` +
      `queries with a match: ${figures.enrolledQueriesWithMatch}/${enrolledQueries} enrolled, ` +
      `${figures.strangerQueriesWithMatch}/${queries - enrolledQueries} strangers`,
  );

  if (process.env.BENCH_SWEEP !== '0') {
    console.log("  probes sweep (recall, recall without the owners' other faces, p50, p99):");
    for (const p of [8, 16, 24, 32, 48, 64, 128, index.listTotal]) {
      if (p > index.listTotal) continue;
      const count = p === index.listTotal ? Math.min(queries, 100) : queries;
      const run = measure(p, count);
      const bare = measure(p, count, false);
      const row = {
        probes: p,
        recall: run.recall,
        recallWithoutOwnerFaces: bare.recall,
        p50Ms: percentile(run.times, 50),
        p99Ms: percentile(run.times, 99),
      };
      figures.sweep.push(row);
      console.log(
        `    ${String(p).padStart(5)}  recall ${row.recall.toFixed(4)}  ${row.recallWithoutOwnerFaces.toFixed(4)}  ` +
          `p50 ${ms(row.p50Ms)}  p99 ${ms(row.p99Ms)}` +
          `${p === index.listTotal ? ' (every list: an int8 flat scan)' : ''}${count < queries ? ` (${count} queries)` : ''}`,
      );
    }
  }

  // Live changes: enrolments of new people, then removals of whole owners.
  const adds: number[] = [];
  const fresh = new Float32Array(DIM);
  for (let i = 0; i < 10_000; i++) {
    world.picturesOf(persons + 1_000_000 + i, 1, random, fresh);
    const t0 = performance.now();
    index.add(faces + 1 + i, ownerKey(persons + 1_000_000 + i), fresh);
    adds.push(performance.now() - t0);
  }
  const removals: number[] = [];
  const removedPeople: number[] = [];
  for (let q = 0; q < enrolledQueries && removedPeople.length < 200; q++) {
    const person = personOf[(exact[q]?.[0] ?? 1) - 1];
    if (exact[q]?.length === 0 || person === undefined) continue;
    const t0 = performance.now();
    index.removeOwner(ownerKey(person));
    removals.push(performance.now() - t0);
    removedPeople.push(q);
  }
  let removedFoundAgain = 0;
  for (const q of removedPeople) {
    const person = personOf[(exact[q]?.[0] ?? 1) - 1] ?? 0;
    const results = index.search(query(q), radius, 1000, { probes: index.listTotal });
    removedFoundAgain += results.filter((r) => r.ownerKey === ownerKey(person)).length;
  }
  figures.addP99Ms = percentile(adds, 99);
  figures.removeOwnerP99Ms = percentile(removals, 99);
  figures.removedFoundAgain = removedFoundAgain;
  console.log(
    `  live: 10,000 adds p50 ${ms(percentile(adds, 50))} p99 ${ms(figures.addP99Ms)}; ${removals.length} removeOwner ` +
      `p99 ${ms(figures.removeOwnerP99Ms)}; removed people's faces found again (all lists probed): ${removedFoundAgain}`,
  );
  return figures;
}
