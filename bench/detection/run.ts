/**
 * Detection benchmark (make bench-detection): the identity check at the scale of a real registry.
 *
 * Seeds BENCH_IDENTITIES verified, boxed identities (default 1,000,000) with 3 variations each
 * straight into detection's projection table (what its registry consumer fills; the consumer path
 * is covered by the tests and the e2e test), then starts detection, which reads them all into its
 * in-memory index before it serves. Prints:
 *   - load time (database to index) and memory (heap, RSS);
 *   - single-check p50/p99: in-service (the use case, no HTTP), HTTP to detection, and through
 *     the gateway, for exact names, one-typo names and unknown names; the picture is one local
 *     image whose fingerprint is cached after the first call;
 *   - batch of 100: p50/p99 HTTP to detection and through the gateway.
 * Goals (the issue): single check p99 < 10 ms in-service at 1M identities; batch of 100 < 150 ms.
 *
 * Environment: BENCH_IDENTITIES (default 1000000), BENCH_CHECKS (per kind, default 2000),
 * BENCH_BATCHES (default 50), TEST_DATABASE_URL (the local PostgreSQL, else testcontainers).
 * Needs about 3 GiB of heap at 1M: the Makefile target sets --max-old-space-size.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { loadConfig } from '@svc/config';
import { detectionConfigSchema, startDetection } from '@svc/detection';
import { gatewayConfigSchema, startGateway } from '@svc/gateway';
import { createLogger } from '@svc/logger';
import { InProcessMessageBus } from '@svc/messaging';
import { signInternalToken } from '@svc/service-kit';
import { createDatabase } from '@svc/storage';
import { freshPostgresDatabase } from '@svc/test-kit';
import sharp from 'sharp';

const silent = createLogger('bench', { level: 'silent' });
const SECRET = 'bench-detection-secret-0123456789-abcdef';

function intFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

/** A seeded PRNG (mulberry32): the same run every time. */
function prng(seed: number): () => number {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const ONSETS = [
  'b',
  'br',
  'c',
  'ch',
  'd',
  'f',
  'g',
  'gr',
  'h',
  'j',
  'k',
  'l',
  'm',
  'n',
  'p',
  'r',
  's',
  'sh',
  't',
  'th',
  'v',
  'w',
  'z',
  '',
];
const VOWELS = ['a', 'e', 'i', 'o', 'u', 'ai', 'ea', 'ou', 'y'];
const CODAS = ['', 'n', 'r', 's', 'l', 'm', 'th', 'ck', 'x', 'nd', 'rt'];

function word(random: () => number, syllables: number): string {
  let out = '';
  for (let i = 0; i < syllables; i++) {
    out += ONSETS[Math.floor(random() * ONSETS.length)];
    out += VOWELS[Math.floor(random() * VOWELS.length)];
    if (i === syllables - 1 || random() < 0.3) out += CODAS[Math.floor(random() * CODAS.length)];
  }
  return out.charAt(0).toUpperCase() + out.slice(1);
}

function personName(random: () => number): string {
  return `${word(random, 2 + Math.floor(random() * 2))} ${word(random, 2 + Math.floor(random() * 2))}`;
}

function typo(random: () => number, name: string): string {
  const letters = [...name];
  let at = Math.floor(random() * letters.length);
  if (letters[at] === ' ') at = Math.max(0, at - 1);
  const kind = Math.floor(random() * 3);
  if (kind === 0) letters.splice(at, 1);
  else if (kind === 1) letters.splice(at, 0, letters[at] ?? 'e');
  else if (at + 1 < letters.length && letters[at + 1] !== ' ')
    [letters[at], letters[at + 1]] = [letters[at + 1] ?? '', letters[at] ?? ''];
  return letters.join('');
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

function summary(label: string, samples: number[]): string {
  const sorted = [...samples].sort((a, b) => a - b);
  return `${label.padEnd(44)} p50 ${percentile(sorted, 50).toFixed(3).padStart(8)} ms   p99 ${percentile(
    sorted,
    99,
  )
    .toFixed(3)
    .padStart(8)} ms   max ${(sorted.at(-1) ?? 0).toFixed(3).padStart(8)} ms`;
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

async function seed(url: string, count: number, random: () => number): Promise<string[]> {
  const db = await createDatabase({ url });
  const names: string[] = [];
  const PAGE = 5_000;
  try {
    for (let start = 0; start < count; start += PAGE) {
      const size = Math.min(PAGE, count - start);
      const claimIds: string[] = [];
      const owners: string[] = [];
      const primary: string[] = [];
      const variations: string[] = [];
      const boxIds: string[] = [];
      const policies: string[] = [];
      for (let i = 0; i < size; i++) {
        const n = start + i;
        const name = personName(random);
        names.push(name);
        claimIds.push(`claim_bench${String(n).padStart(9, '0')}`);
        boxIds.push(`box_bench${String(n).padStart(9, '0')}`);
        owners.push(`plat_owner${n % 1000}`);
        primary.push(name);
        const [first, last] = name.split(' ');
        variations.push(
          JSON.stringify([
            `${first?.slice(0, 3)} ${last}`,
            `${first} ${word(random, 2)} ${last}`,
            `${word(random, 2)} ${last}`,
          ]),
        );
        policies.push(
          ['BLOCK_ALL', 'LICENSE', 'MONETIZE', 'TEAM', 'OPEN', 'BLOCK_COMMERCIAL'][n % 6] ?? 'LICENSE',
        );
      }
      await db.query(
        `INSERT INTO identities (claim_id, owner_platform_id, name, variations, entity_type, verification_tier, verified_at,
           claim_updated_at, box_id, policy, enforcement, policy_config, royalty_rate, boxed_at, box_updated_at, change_seq)
         SELECT c, o, n, v::jsonb, 'INDIVIDUAL', 'SILVER', now(), now(), b, p, 'MODERATE', '{}'::jsonb, 0, now(), now(),
           nextval('identity_change_seq')
         FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::text[]) AS t(c, o, n, v, b, p)`,
        [claimIds, owners, primary, variations, boxIds, policies],
      );
    }
  } finally {
    await db.close();
  }
  return names;
}

async function main(): Promise<number> {
  const identities = intFromEnv('BENCH_IDENTITIES', 1_000_000);
  const checks = intFromEnv('BENCH_CHECKS', 2_000);
  const batches = intFromEnv('BENCH_BATCHES', 50);
  const random = prng(20261122);
  const detectionDb = await freshPostgresDatabase('bench_detection');
  const gatewayDb = await freshPostgresDatabase('bench_gateway');
  const picture = await sharp({
    create: { width: 320, height: 320, channels: 3, background: { r: 40, g: 120, b: 200 } },
  })
    .composite([
      {
        input: Buffer.from(
          '<svg width="320" height="320"><circle cx="160" cy="140" r="90" fill="#f4c"/></svg>',
        ),
      },
    ])
    .jpeg()
    .toBuffer();
  const images = createServer((_req, res) =>
    res.writeHead(200, { 'content-type': 'image/jpeg' }).end(picture),
  );
  await new Promise<void>((resolve) => images.listen(0, '127.0.0.1', resolve));
  const imageUrl = `http://127.0.0.1:${(images.address() as AddressInfo).port}/avatar.jpg`;

  const bus = new InProcessMessageBus({ logger: silent });
  const config = loadConfig(detectionConfigSchema, {
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: detectionDb.url,
    INTERNAL_JWT_SECRET: SECRET,
    LOG_LEVEL: 'silent',
    SVC_ALLOW_PRIVATE_FETCH: 'true',
  });
  // Once to create the schema, then stopped: the seeded rows are loaded by the second start.
  await (await startDetection(config, { bus, logger: silent })).stop();
  console.log(`seeding ${identities.toLocaleString('en')} identities x 4 names ...`);
  const seedStart = performance.now();
  const names = await seed(detectionDb.url, identities, random);
  console.log(`seeded in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);

  global.gc?.();
  const heapBefore = process.memoryUsage().heapUsed;
  const loadStart = performance.now();
  const detection = await startDetection(config, { bus, logger: silent });
  const loadSeconds = (performance.now() - loadStart) / 1000;
  global.gc?.();
  const memory = process.memoryUsage();
  console.log(
    `\nindex loaded: ${detection.catalogue.size.toLocaleString('en')} identities in ${loadSeconds.toFixed(1)} s; ` +
      `heap +${mib(memory.heapUsed - heapBefore)} (heap ${mib(memory.heapUsed)}, rss ${mib(memory.rss)})`,
  );

  const gateway = await startGateway(
    loadConfig(gatewayConfigSchema, {
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: gatewayDb.url,
      INTERNAL_JWT_SECRET: SECRET,
      ADMIN_TOKEN: 'adm_bench_detection_token_0123456789',
      DETECTION_URL: detection.url,
      LOG_LEVEL: 'silent',
    }),
    { logger: silent },
  );
  const admin = async (path: string, body: unknown) => {
    const res = await fetch(gateway.url + path, {
      method: 'POST',
      headers: {
        authorization: 'Bearer adm_bench_detection_token_0123456789',
        'content-type': 'application/json',
      },
      body: JSON.stringify(body),
    });
    return (await res.json()) as { data: { id: string; key: string } };
  };
  const platform = await admin('/admin/platforms', {
    name: 'Bench platform',
    plan: 'enterprise',
    limits: { perMinute: 1_000_000, perDay: 100_000_000 },
  });
  const apiKey = (await admin(`/admin/platforms/${platform.data.id}/keys`, {})).data.key;
  const token = signInternalToken(SECRET, {
    platformId: platform.data.id,
    environment: 'sandbox',
    keyId: 'key_bench',
    plan: 'enterprise',
    role: 'platform',
  });

  const post = async (
    base: string,
    auth: string,
    path: string,
    body: unknown,
  ): Promise<{ ms: number; body: any }> => {
    const start = performance.now();
    const res = await fetch(base + path, {
      method: 'POST',
      headers: { authorization: `Bearer ${auth}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const parsed = await res.json();
    const ms = performance.now() - start;
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(parsed)}`);
    return { ms, body: parsed };
  };

  const pick = () => names[Math.floor(random() * names.length)] ?? 'Ada Lovelace';
  const kinds: [string, () => string][] = [
    ['exact', pick],
    ['one typo', () => typo(random, pick())],
    ['unknown', () => `${word(random, 3)} ${word(random, 3)}x`],
  ];
  // Warm the picture's fingerprint cache and the JIT.
  await post(detection.url, token, '/v1/svc/identity/check', { name: pick(), imageUrl });
  for (let i = 0; i < 200; i++) detection.catalogue.matchName(typo(random, pick()));

  console.log('\nsingle check (picture fingerprint cached)');
  let found = 0;
  for (const [kind, make] of kinds) {
    const inService: number[] = [];
    const direct: number[] = [];
    const viaGateway: number[] = [];
    for (let i = 0; i < checks; i++) {
      const name = make();
      const start = performance.now();
      const hit = detection.catalogue.matchName(name);
      inService.push(performance.now() - start);
      if (kind !== 'unknown' && hit) found += 1;
    }
    for (let i = 0; i < Math.min(checks, 1000); i++) {
      direct.push(
        (await post(detection.url, token, '/v1/svc/identity/check', { name: make(), imageUrl })).ms,
      );
      viaGateway.push(
        (await post(gateway.url, apiKey, '/v1/svc/identity/check', { name: make(), imageUrl })).ms,
      );
    }
    console.log(summary(`  ${kind}: in-service (index, no HTTP)`, inService));
    console.log(summary(`  ${kind}: HTTP to detection`, direct));
    console.log(summary(`  ${kind}: through the gateway`, viaGateway));
  }
  console.log(`  recall on exact + one-typo names: ${((found / (2 * checks)) * 100).toFixed(1)} %`);

  console.log('\nbatch of 100 (half protected names with a typo, half unknown)');
  const batchDirect: number[] = [];
  const batchGateway: number[] = [];
  for (let b = 0; b < batches; b++) {
    const identitiesOf = () =>
      Array.from({ length: 100 }, (_, i) => ({
        id: String(i),
        name: i % 2 === 0 ? typo(random, pick()) : `${word(random, 3)} ${word(random, 3)}x`,
        imageUrl,
      }));
    batchDirect.push(
      (await post(detection.url, token, '/v1/svc/identity/check/batch', { identities: identitiesOf() })).ms,
    );
    batchGateway.push(
      (await post(gateway.url, apiKey, '/v1/svc/identity/check/batch', { identities: identitiesOf() })).ms,
    );
  }
  console.log(summary('  HTTP to detection', batchDirect));
  console.log(summary('  through the gateway', batchGateway));

  await gateway.stop();
  await detection.stop();
  await bus.close();
  images.close();
  await gatewayDb.drop();
  await detectionDb.drop();
  return 0;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
