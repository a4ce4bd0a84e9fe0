/**
 * Detection's memory per indexed identity (issue #34, the soak): what one detection process keeps
 * for each identity it indexes the way the fault suite's workload makes them, against what its name
 * index needs for the same names, measured in the same run; and the garbage its answers make.
 *
 * One detection (real PostgreSQL, the in-process bus, its face workers, its jobs at their default
 * intervals, snapshots on) is fed, per identity, what registry publishes for a workload chain
 * (test-faults/workload.ts): registry.claim.created (pending), registry.claim.verified with a
 * reference image, registry.box.created (MONETIZE); then enforcement's questions: the new box's
 * initial scan (every avatar reported so far, SCAN_PAGE at a time, against that box alone, as
 * services/enforcement's scan-new-box.use-case.ts asks) and a full evaluation of an avatar under
 * the name. Every reference image is the same small PNG, served locally, as the suite's webhook
 * receiver serves it. After a warm-up of BENCH_WARMUP identities (JIT, the face model, the pools),
 * memory is read with GC forced before and after BENCH_IDENTITIES more (process.memoryUsage, V8's
 * heap spaces, the resident growth by mapping from /proc/self/smaps), and a heap snapshot, written
 * after every reading, is summed by constructor (what holds the heap). V8's sampling heap profiler
 * (collected objects included) measures what a twentieth more identities allocate, once after the
 * warm-up and once at the end, per avatar question and by function. The same-run baseline is a bare
 * NameIndex of the same names: its arrays' bytes and its heap growth per identity. Last, the scan's
 * search of one identity (NameIndex.searchIdentity) is checked against the whole index's search
 * limited to that identity on 3,000 questions: any difference exits 1.
 *
 *   pnpm exec tsc -b bench && node --expose-gc bench/dist/detection/memory.bench.js
 *
 * Goals: (1) what the catalogue holds per identity (heap + ArrayBuffers growth, GC forced) at most
 * 4x the bare name index's own cost: beside the names (1x) it keeps each identity's JSON record,
 * once per change read (claim verified, box, picture: about 1x), its reference picture's 21 hashes
 * in the image index (64 B each, about 0.6x) and fingerprint, in arrays that grow by 1.5x to 2x;
 * (2) the garbage per avatar question at the end at most 1.25x that after the warm-up: a scan's
 * question must not cost more as the catalogue grows (the heap V8 keeps follows the garbage rate).
 * Environment: BENCH_IDENTITIES (default 2000), BENCH_WARMUP (default 200), BENCH_CONCURRENCY
 * (chains at once, default 6), BENCH_HEAP_SNAPSHOTS=0 to skip the snapshot, BENCH_PICTURES=0 (no
 * reference images), BENCH_EVALUATIONS=0 (no avatar questions), BENCH_DEBUG=1 (mappings by size),
 * TEST_DATABASE_URL (the local PostgreSQL, else testcontainers).
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { Session } from 'node:inspector';
import v8 from 'node:v8';
import { loadConfig } from '@svc/config';
import { AVATAR_EVALUATION_PATH } from '@svc/contracts/detection';
import { boxCreated, claimCreated, claimVerified } from '@svc/contracts/registry';
import { detectionConfigSchema, startDetection, type RunningDetection } from '@svc/detection';
import { createLogger } from '@svc/logger';
import { InProcessMessageBus } from '@svc/messaging';
import {
  isAboveThreshold,
  MATCH_THRESHOLDS,
  NameIndex,
  type SearchMode,
  type SearchOutcome,
} from '@svc/name-matching';
import { signInternalToken } from '@svc/service-kit';
import { freshPostgresDatabase } from '@svc/test-kit';
import sharp from 'sharp';
import { request } from 'undici';
import { personName, prng, typo, variationsOf } from './synthetic-names';

const silent = createLogger('bench', { level: 'silent' });
const SECRET = 'bench-detection-memory-secret-0123456789';
const OWNER = 'plat_benchmemoryowner';
/** Avatars per question of a box's initial scan (services/enforcement, scan-new-box.use-case.ts). */
const SCAN_PAGE = 100;

function intFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0)
    throw new Error(`${name} must be a non-negative integer, got "${raw}"`);
  return value;
}

/** The suite's reference picture (test-faults/webhook-receiver.ts): 128x128, circles on blue. */
function referencePicture(): Promise<Buffer> {
  const circles = Array.from({ length: 12 }, (_, i) => {
    const v = (i * 131 + 17) % 251;
    return `<circle cx="${(v * 7) % 128}" cy="${(v * 13) % 128}" r="${10 + (v % 30)}" fill="rgb(${v},${(v * 3) % 255},${(v * 5) % 255})"/>`;
  });
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="128" height="128"><rect width="100%" height="100%" fill="rgb(40,90,140)"/>${circles.join('')}</svg>`;
  return sharp(Buffer.from(svg)).png().toBuffer();
}

interface Memory {
  rss: number;
  heapTotal: number;
  heapUsed: number;
  spaces: Record<string, { committed: number; used: number }>;
  external: number;
  arrayBuffers: number;
}

/** Memory after full collections (twice: weak callbacks free ArrayBuffers on the second). */
async function settledMemory(): Promise<Memory> {
  for (let i = 0; i < 3; i++) {
    global.gc?.();
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const { rss, heapTotal, heapUsed, external, arrayBuffers } = process.memoryUsage();
  const spaces = Object.fromEntries(
    v8
      .getHeapSpaceStatistics()
      .map((s) => [s.space_name, { committed: s.physical_space_size, used: s.space_used_size }]),
  );
  return { rss, heapTotal, heapUsed, spaces, external, arrayBuffers };
}

interface ConstructorTotal {
  count: number;
  bytes: number;
}

/** A heap snapshot's self sizes summed by node type and constructor name. */
function heapByConstructor(file: string): Map<string, ConstructorTotal> {
  const snapshot = JSON.parse(readFileSync(file, 'utf8')) as {
    snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
    nodes: number[];
    strings: string[];
  };
  const fields = snapshot.snapshot.meta.node_fields;
  const types = snapshot.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf('type');
  const nameAt = fields.indexOf('name');
  const sizeAt = fields.indexOf('self_size');
  const totals = new Map<string, ConstructorTotal>();
  const { nodes, strings } = snapshot;
  for (let at = 0; at < nodes.length; at += width) {
    const type = types[nodes[at + typeAt] ?? 0] ?? '?';
    const rawName = strings[nodes[at + nameAt] ?? 0] ?? '?';
    // Strings and code are grouped by kind; objects by their constructor.
    const name =
      type === 'object' || type === 'native' || type === 'closure'
        ? `${type} ${rawName.slice(0, 60)}`
        : `(${type})`;
    const total = totals.get(name) ?? { count: 0, bytes: 0 };
    total.count += 1;
    total.bytes += nodes[at + sizeAt] ?? 0;
    totals.set(name, total);
  }
  return totals;
}

interface SamplingNode {
  callFrame: { functionName: string; url: string; lineNumber: number };
  selfSize: number;
  children: SamplingNode[];
}
interface SamplingProfile {
  head: SamplingNode;
}

/** Bytes allocated by function (self), from a sampling heap profile. */
function allocationSites(profile: SamplingProfile): {
  total: number;
  sites: { site: string; bytes: number }[];
} {
  const bySite = new Map<string, number>();
  let total = 0;
  const walk = (node: SamplingNode): void => {
    const frame = node.callFrame;
    const file = frame.url.replace(/^.*\/(packages|services|node_modules)\//, '$1/');
    const site = `${frame.functionName || '(anonymous)'} ${file}:${frame.lineNumber + 1}`;
    bySite.set(site, (bySite.get(site) ?? 0) + node.selfSize);
    total += node.selfSize;
    for (const child of node.children) walk(child);
  };
  walk(profile.head);
  const sites = [...bySite].map(([site, bytes]) => ({ site, bytes })).sort((a, b) => b.bytes - a.bytes);
  return { total, sites };
}

interface Mapping {
  start: string;
  size: number;
  rss: number;
  what: string;
}

/** The process's mappings with their resident bytes (/proc/self/smaps; [] where there is none). */
function mappings(): Mapping[] {
  let text = '';
  try {
    text = readFileSync('/proc/self/smaps', 'utf8');
  } catch {
    return [];
  }
  const out: Mapping[] = [];
  let current: Mapping | undefined;
  for (const line of text.split('\n')) {
    const head = /^([0-9a-f]+)-([0-9a-f]+) \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head) {
      current = {
        start: head[1] ?? '',
        size: parseInt(head[2] ?? '0', 16) - parseInt(head[1] ?? '0', 16),
        rss: 0,
        what: head[3] || '(anonymous)',
      };
      out.push(current);
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss && current) current.rss = Number(rss[1]) * 1024;
  }
  return out;
}

/** A mapping's kind: its file, or for anonymous memory its size class (glibc's arenas are 64 MiB). */
function kindOf(m: Mapping): string {
  if (m.what !== '(anonymous)') return m.what.replace(/^.*\/node_modules\/(\.pnpm\/)?/, '');
  const size = m.size / 2 ** 20;
  if (size <= 1) return 'anonymous, up to 1 MiB';
  if (size < 60) return 'anonymous, 1-60 MiB';
  if (size <= 64) return 'anonymous, 60-64 MiB (glibc thread arenas)';
  return 'anonymous, over 64 MiB';
}

/** Resident growth between two readings of the mappings, by kind, largest first. */
function residentGrowth(before: Mapping[], after: Mapping[]): { kind: string; bytes: number }[] {
  const was = new Map(before.map((m) => [m.start, m.rss]));
  const byKind = new Map<string, number>();
  for (const m of after)
    byKind.set(kindOf(m), (byKind.get(kindOf(m)) ?? 0) + m.rss - (was.get(m.start) ?? 0));
  const seen = new Set(after.map((m) => m.start));
  for (const m of before) if (!seen.has(m.start)) byKind.set(kindOf(m), (byKind.get(kindOf(m)) ?? 0) - m.rss);
  return [...byKind].map(([kind, bytes]) => ({ kind, bytes })).sort((a, b) => b.bytes - a.bytes);
}

const kib = (bytes: number) => `${(bytes / 1024).toFixed(1)} KiB`;
const mib = (bytes: number) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

interface Identity {
  claimId: string;
  boxId: string;
  name: string;
  variations: string[];
}

async function main(): Promise<number> {
  if (global.gc === undefined) throw new Error('run with node --expose-gc');
  const count = intFromEnv('BENCH_IDENTITIES', 2000);
  const warmup = intFromEnv('BENCH_WARMUP', 200);
  const concurrency = Math.max(1, intFromEnv('BENCH_CONCURRENCY', 6));
  // Written after every memory reading (the snapshot's own memory would count in them).
  const snapshots = process.env.BENCH_HEAP_SNAPSHOTS !== '0';
  const pictures = process.env.BENCH_PICTURES !== '0';
  const evaluations = process.env.BENCH_EVALUATIONS !== '0';
  const random = prng(20261130);
  const db = await freshPostgresDatabase('bench_detection_memory');
  const dataDir = mkdtempSync(path.join(os.tmpdir(), 'bench-detection-memory-'));
  const picture = await referencePicture();
  const images = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'image/png', 'content-length': picture.length }).end(picture),
  );
  await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
  const imageBase = `http://127.0.0.1:${(images.address() as AddressInfo).port}/images`;

  const bus = new InProcessMessageBus({ logger: silent });
  const config = loadConfig(detectionConfigSchema, {
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: db.url,
    INTERNAL_JWT_SECRET: SECRET,
    LOG_LEVEL: 'silent',
    SVC_ALLOW_PRIVATE_FETCH: 'true',
    DATA_DIR: dataDir,
  });
  const detection: RunningDetection = await startDetection(config, { bus, logger: silent });
  const token = signInternalToken(
    SECRET,
    {
      platformId: 'plat_benchmemoryenforcement',
      environment: 'sandbox',
      keyId: 'key_bench',
      plan: 'enterprise',
      role: 'platform',
    },
    { ttlSeconds: 3600 },
  );
  const evaluate = async (body: unknown): Promise<void> => {
    const res = await request(detection.url + AVATAR_EVALUATION_PATH, {
      method: 'POST',
      headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    questions += 1;
    const text = await res.body.text();
    if (res.statusCode !== 200) throw new Error(`avatar evaluation answered ${res.statusCode}: ${text}`);
  };

  let made = 0;
  let questions = 0;
  const avatars: { ref: string; name: string; description: string }[] = [];
  const chain = async (): Promise<Identity> => {
    const n = made++;
    const name = personName(random);
    const identity: Identity = {
      claimId: `claim_benchmem${String(n).padStart(9, '0')}`,
      boxId: `box_benchmem${String(n).padStart(9, '0')}`,
      name,
      variations: variationsOf(random, name),
    };
    const now = new Date();
    const claim = {
      claimId: identity.claimId,
      ownerPlatformId: OWNER,
      name,
      variations: identity.variations,
      entityType: 'INDIVIDUAL' as const,
      verificationTier: 'SILVER' as const,
      referenceImages: pictures
        ? [{ id: `img_benchmem${n}`, url: `${imageBase}/ref-${n}.png`, isPrimary: true }]
        : [],
      boxId: null,
      createdAt: now.toISOString(),
      updatedAt: now.toISOString(),
    };
    const meta = { occurredAt: now, platformId: OWNER };
    await bus.publish(claimCreated.create({ ...claim, status: 'pending', verifiedAt: null }, meta));
    const verifiedAt = new Date(now.getTime() + 1).toISOString();
    await bus.publish(
      claimVerified.create({ ...claim, status: 'verified', verifiedAt, updatedAt: verifiedAt }, meta),
    );
    const boxedAt = new Date(now.getTime() + 2).toISOString();
    await bus.publish(
      boxCreated.create(
        {
          boxId: identity.boxId,
          claimId: identity.claimId,
          ownerPlatformId: OWNER,
          identityName: name,
          variations: identity.variations,
          entityType: 'INDIVIDUAL',
          verificationTier: 'SILVER',
          policy: 'MONETIZE',
          enforcement: 'MODERATE',
          policyConfig: { royaltyRate: 0.1 },
          royaltyRate: 0.1,
          referenceImageUrls: claim.referenceImages.map((image) => image.url),
          status: 'active',
          createdAt: boxedAt,
          updatedAt: boxedAt,
        },
        meta,
      ),
    );
    // Enforcement's questions: the new box's initial scan (every avatar reported so far, a page of
    // SCAN_PAGE at a time, against this box only), then an avatar reported under the name.
    if (evaluations) {
      const reported = avatars.slice();
      for (let at = 0; at < reported.length; at += SCAN_PAGE)
        await evaluate({ boxId: identity.boxId, avatars: reported.slice(at, at + SCAN_PAGE) });
      const avatar = { ref: `avatar-${n}`, name, description: 'Fan chat avatar' };
      avatars.push(avatar);
      await evaluate({ avatars: [avatar] });
    }
    return identity;
  };

  const run = async (identities: number): Promise<Identity[]> => {
    const done: Identity[] = [];
    const target = made + identities;
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        while (made < target) done.push(await chain());
      }),
    );
    // Every reference image enrolled and read into the index, as the soak's settle leaves them.
    const deadline = performance.now() + 10 * 60_000;
    while (pictures && detection.catalogue.referenceImageCount < made) {
      if (performance.now() > deadline)
        throw new Error(
          `only ${detection.catalogue.referenceImageCount} of ${made} reference images were enrolled`,
        );
      await detection.fingerprintReferenceImages();
      await detection.refreshIndex();
    }
    return done;
  };

  /**
   * What indexing `identities` more allocates, by V8's sampling heap profiler with the objects
   * collected since included (what the collector has to clear, and what V8 sizes the heap for at
   * a given rate of questions), and how many avatar questions they asked. Kept apart from the
   * memory readings: the profiler holds its samples until it stops.
   */
  const allocationOf = async (identities: number) => {
    const session = new Session();
    session.connect();
    const post = (method: string, params?: object) =>
      new Promise<unknown>((resolve, reject) =>
        session.post(method, params ?? {}, (err, result) => (err ? reject(err) : resolve(result))),
      );
    await post('HeapProfiler.startSampling', {
      samplingInterval: 16_384,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
    questions = 0;
    const from = made;
    await run(identities);
    const { profile } = (await post('HeapProfiler.stopSampling')) as { profile: SamplingProfile };
    session.disconnect();
    return { ...allocationSites(profile), questions, identities, catalogue: from };
  };
  const profiledCount = Math.max(1, Math.round(count / 20));

  console.log(`warm-up: ${warmup} identities ...`);
  await run(warmup);
  const early = await allocationOf(profiledCount);
  const before = await settledMemory();
  const mappedBefore = mappings();
  const namesBefore = detection.catalogue.nameIndexBytes;

  console.log(`indexing ${count} identities the workload's way (${concurrency} chains at once) ...`);
  // RSS as the soak reads it (no collection forced), twice a second.
  const unforced: { at: number; rss: number }[] = [];
  const reading = setInterval(
    () => unforced.push({ at: performance.now(), rss: process.memoryUsage.rss() }),
    500,
  );
  const started = performance.now();
  const indexed = await run(count);
  const seconds = (performance.now() - started) / 1000;
  clearInterval(reading);
  const after = await settledMemory();
  const mappedAfter = mappings();
  const namesAfter = detection.catalogue.nameIndexBytes;

  // Then what the next identities allocate at this size (see allocationOf).
  const late = await allocationOf(profiledCount);
  const snapshotAfter = snapshots ? v8.writeHeapSnapshot(path.join(dataDir, 'after.heapsnapshot')) : '';
  const catalogueSize = detection.catalogue.size;
  const storedNames = detection.catalogue.storedNames;
  await detection.stop();
  await bus.close();
  await new Promise<void>((resolve) => images.close(() => resolve()));

  // The same-run baseline: a bare name index of the same names, in this process.
  const bareBefore = await settledMemory();
  const bare = new NameIndex();
  for (const identity of indexed)
    bare.add({ id: identity.claimId, names: [identity.name, ...identity.variations] });
  const bareAfter = await settledMemory();
  const bareBytes = bare.bytes;

  // A box's initial scan searches the box's identity alone (NameIndex.searchIdentity): its answers
  // must be the whole index's limited to that identity, as the scan's filter limited them before.
  const lowest = Math.min(...Object.values(MATCH_THRESHOLDS));
  const accepts = (confidence: number) => isAboveThreshold(confidence, 'MODERATE');
  const sameAnswer = (a: SearchOutcome['best'], b: SearchOutcome['best']) =>
    JSON.stringify(a) === JSON.stringify(b);
  let compared = 0;
  let different = 0;
  // Absent from the code before the fix (run with it for a same-method "before").
  const scoped = typeof (bare as Partial<NameIndex>).searchIdentity === 'function';
  const checked = scoped ? indexed.slice(0, 300) : [];
  checked.forEach((identity, i) => {
    const other = checked[(i + 1) % checked.length] ?? identity;
    const queries: [string, SearchMode][] = [
      [identity.name, 'name'],
      [typo(random, identity.name), 'name'],
      [`The Real ${typo(random, identity.name)}`, 'name'],
      [other.name, 'name'],
      [`Fan chat of ${identity.name} and friends`, 'description'],
    ];
    for (const [query, mode] of queries)
      for (const id of [identity.claimId, other.claimId]) {
        const whole = bare.search(query, (r) => r.identityId === id && accepts(r.confidence), mode, lowest);
        const one = bare.searchIdentity(query, id, (r) => accepts(r.confidence), mode);
        compared += 1;
        if (!sameAnswer(whole.best, one.best)) {
          different += 1;
          if (different <= 3)
            console.error(`different answers for "${query}" (${mode}) on ${id}:`, whole.best, one.best);
        }
      }
  });

  const per = (a: number, b: number) => (b - a) / count;
  const heapPer = per(before.heapUsed, after.heapUsed);
  const offHeapPer = per(before.arrayBuffers, after.arrayBuffers);
  const rssPer = per(before.rss, after.rss);
  const namesPer = (namesAfter - namesBefore) / count;
  // The bare index's own cost: its arrays' bytes over the identities, or its heap and
  // ArrayBuffer growth when that is more (the Buffers' minimum sizes at this small a count).
  const barePer = Math.max(
    bareBytes / count,
    per(bareBefore.heapUsed + bareBefore.arrayBuffers, bareAfter.heapUsed + bareAfter.arrayBuffers),
  );

  console.log(
    `\n${count} identities indexed in ${seconds.toFixed(1)} s: catalogue ${catalogueSize} identities, ${storedNames} names stored ` +
      `(replaced ones included)`,
  );
  console.log(
    `memory before: rss ${mib(before.rss)}, heap ${mib(before.heapUsed)}, external ${mib(before.external)} (ArrayBuffers ${mib(before.arrayBuffers)})`,
  );
  console.log(
    `memory after:  rss ${mib(after.rss)}, heap ${mib(after.heapUsed)}, external ${mib(after.external)} (ArrayBuffers ${mib(after.arrayBuffers)})`,
  );
  console.log(`per identity:  rss ${kib(rssPer)}, heap ${kib(heapPer)}, ArrayBuffers ${kib(offHeapPer)}`);
  console.log(
    `baseline (same run): the service's name index grew ${kib(namesPer)} per identity (arrays' capacity); ` +
      `a bare NameIndex of the same names holds ${kib(bareBytes / count)} per identity ` +
      `(heap + ArrayBuffers +${kib(per(bareBefore.heapUsed + bareBefore.arrayBuffers, bareAfter.heapUsed + bareAfter.arrayBuffers))})`,
  );

  console.log(
    `main isolate's heap: committed ${mib(before.heapTotal)} -> ${mib(after.heapTotal)}; by space (committed, used):`,
  );
  for (const [name, space] of Object.entries(after.spaces)) {
    const was = before.spaces[name] ?? { committed: 0, used: 0 };
    console.log(
      `  ${name.padEnd(28)} ${mib(was.committed)} -> ${mib(space.committed)}, used ${mib(was.used)} -> ${mib(space.used)}`,
    );
  }
  if (process.env.BENCH_DEBUG === '1') {
    const was = new Map(mappedBefore.map((m) => [m.start, m]));
    const sizes = new Map<string, { n: number; grew: number; fresh: number }>();
    for (const m of mappedAfter) {
      const key = `${kindOf(m)} size ${Math.round(m.size / 1024)} KiB`;
      const e = sizes.get(key) ?? { n: 0, grew: 0, fresh: 0 };
      const old = was.get(m.start);
      e.n++;
      e.grew += m.rss - (old?.rss ?? 0);
      if (!old) e.fresh++;
      sizes.set(key, e);
    }
    for (const [k, e] of [...sizes].sort((a, b) => b[1].grew - a[1].grew).slice(0, 12))
      console.log('  ', k, JSON.stringify(e));
  }
  const growth = residentGrowth(mappedBefore, mappedAfter);
  if (growth.length > 0) {
    console.log('\nresident growth by mapping (/proc/self/smaps, every thread of the process):');
    for (const row of growth.slice(0, 6))
      console.log(
        `  ${row.kind.padEnd(64)} ${kib(row.bytes).padStart(12)} (${(row.bytes / count).toFixed(0)} B per identity)`,
      );
  }

  if (snapshots) {
    const rows = [...heapByConstructor(snapshotAfter)].map(([name, t]) => ({ name, ...t }));
    rows.sort((x, y) => y.bytes - x.bytes);
    console.log(
      `\nwhat holds the heap after indexing (heap snapshot, GC forced, self sizes by constructor; ${made} identities):`,
    );
    for (const row of rows.slice(0, 12))
      console.log(
        `  ${row.name.padEnd(64)} ${String(row.count).padStart(8)} objects ${kib(row.bytes).padStart(12)} ` +
          `(${(row.bytes / made).toFixed(0)} B per identity)`,
      );
  }

  const perQuestion = (a: { total: number; questions: number }) => a.total / Math.max(1, a.questions);
  for (const [when, a] of [
    ['after the warm-up', early],
    ['at the end', late],
  ] as const) {
    console.log(
      `\nallocated indexing ${a.identities} more ${when} (catalogue of ${a.catalogue}; V8's sampling heap profiler, ` +
        `collected objects included): ${mib(a.total)}, ${kib(a.total / a.identities)} per identity, ` +
        `${kib(perQuestion(a))} per avatar question (${a.questions} questions, a scan's page of ${SCAN_PAGE} avatars each but one per identity)`,
    );
    if (a === late)
      for (const { site, bytes } of a.sites.slice(0, 10))
        console.log(
          `  ${site.padEnd(90)} ${mib(bytes).padStart(10)} (${((bytes / a.total) * 100).toFixed(0)} %)`,
        );
  }
  const fifth = (from: number, to: number) =>
    unforced.filter(
      (r) => r.at >= started + from * (seconds * 1000) && r.at <= started + to * (seconds * 1000),
    );
  const medianRss = (readings: { rss: number }[]) =>
    [...readings.map((r) => r.rss)].sort((a, b) => a - b)[Math.floor(readings.length / 2)] ?? 0;
  const unforcedFirst = medianRss(fifth(0, 0.2));
  const unforcedLast = medianRss(fifth(0.8, 1));
  const unforcedPer = (unforcedLast - unforcedFirst) / (count * 0.8);
  console.log(
    `RSS as the soak reads it (no collection forced; medians of the run's first and last fifths): ` +
      `${mib(unforcedFirst)} -> ${mib(unforcedLast)}, ${kib(unforcedPer)} per identity`,
  );

  const goals = [
    {
      label:
        'what the catalogue holds per identity (heap + ArrayBuffers, GC forced) <= 4x the bare name index',
      value: heapPer + offHeapPer,
      limit: 4 * barePer,
    },
    {
      label:
        "garbage per avatar question at the end <= 1.25x after the warm-up (a scan's question does not grow with the catalogue)",
      value: perQuestion(late),
      limit: 1.25 * perQuestion(early),
    },
  ];
  console.log('');
  for (const goal of goals)
    console.log(
      `${goal.value <= goal.limit ? 'PASS' : 'MISS'}: ${goal.label}: ${kib(goal.value)} vs ${kib(goal.limit)}`,
    );
  console.log(
    JSON.stringify({
      identities: count,
      rssPerIdentity: Math.round(rssPer),
      heapPerIdentity: Math.round(heapPer),
      arrayBuffersPerIdentity: Math.round(offHeapPer),
      nameIndexPerIdentity: Math.round(namesPer),
      bareNameIndexPerIdentity: Math.round(barePer),
      unforcedRssPerIdentity: Math.round(unforcedPer),
      allocatedPerQuestionEarly: Math.round(perQuestion(early)),
      allocatedPerQuestionLate: Math.round(perQuestion(late)),
    }),
  );
  console.log(
    scoped
      ? `${different === 0 ? 'PASS' : 'FAIL'}: a box's scan searching its identity alone answers as the whole index limited to it: ` +
          `${compared - different} of ${compared} questions the same`
      : 'NameIndex.searchIdentity is absent: the code before the fix (a scan searches the whole index)',
  );
  rmSync(dataDir, { recursive: true, force: true });
  await db.drop();
  // A different answer is a wrong result, not a missed goal.
  return different === 0 ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
