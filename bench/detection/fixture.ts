/**
 * What the detection benches share: the seeded registry (verified, boxed identities with 3
 * variations each, written straight into detection's projection table), detection's config, the
 * picture the checks carry, and the environment and percentile helpers.
 */
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { loadConfig } from '@svc/config';
import { detectionConfigSchema } from '@svc/detection';
import { createDatabase } from '@svc/storage';
import sharp from 'sharp';
import { personName, variationsOf } from './synthetic-names';

export const SECRET = 'bench-detection-secret-0123456789-abcdef';

export function intFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

/**
 * Seeds `count` verified, boxed identities (policies in turn) and returns their primary names, in
 * order. The names come from `random`, so one seed gives one registry.
 */
export async function seed(url: string, count: number, random: () => number): Promise<string[]> {
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
        variations.push(JSON.stringify(variationsOf(random, name)));
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

export function detectionConfig(url: string, snapshotPath: string, snapshots = true) {
  return loadConfig(detectionConfigSchema, {
    PORT: '0',
    HOST: '127.0.0.1',
    DATABASE_URL: url,
    INTERNAL_JWT_SECRET: SECRET,
    LOG_LEVEL: 'silent',
    SVC_ALLOW_PRIVATE_FETCH: 'true',
    INDEX_SNAPSHOT_PATH: snapshotPath,
    INDEX_SNAPSHOTS: String(snapshots),
  });
}

/** One local JPEG served at `url` (its fingerprint is cached after the first check that names it). */
export async function servePicture(): Promise<{ url: string; close(): void }> {
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
  return {
    url: `http://127.0.0.1:${(images.address() as AddressInfo).port}/avatar.jpg`,
    close: () => images.close(),
  };
}
