/**
 * The enforcement bench's fixtures: the seeded state, and small helpers around the run.
 */
import type { ChildProcess } from 'node:child_process';
import type { Database } from '@svc/storage';
import { connect } from 'amqplib';

const PLATFORMS = 100;
const BOXES = 50;

export async function count(db: Database, sql: string): Promise<number> {
  const { rows } = await db.query<{ n: unknown }>(sql);
  return Number(rows[0]?.n ?? 0);
}

/** The seeded state: every grace period active, its reminders long fired, its expiry due within the last minute. */
export async function seed(db: Database, n: number): Promise<void> {
  await db.query(
    `INSERT INTO avatars (ref, platform_id, avatar_id, name, creator_id, user_count, commercial, revision, evaluation,
       created_at, updated_at)
     SELECT 'av_bench' || i, 'plat_bench' || (i % ${PLATFORMS}), 'avatar-' || i, 'Bench Identity ' || (i % ${BOXES}),
       'creator-' || i, i % 20000, false, 1, 'completed', now() - interval '30 days', now() - interval '30 days'
     FROM generate_series(1, ${n}) AS i`,
  );
  await db.query(
    `INSERT INTO grace_periods (id, platform_id, violation_id, box_id, claim_id, identity_name, box_owner_platform_id,
       policy, environment, enforcement, status, started_at, expires_at, day0_recipients)
     SELECT 'gp_bench' || i, 'plat_bench' || (i % ${PLATFORMS}), 'viol_bench' || i, 'box_bench' || (i % ${BOXES}),
       'claim_bench' || (i % ${BOXES}), 'Bench Identity ' || (i % ${BOXES}), 'plat_owner', 'BLOCK_ALL', 'production',
       'MODERATE', 'active', now() - interval '30 days', now() - interval '60 seconds' + (i % 60) * interval '1 second', '[]'
     FROM generate_series(1, ${n}) AS i`,
  );
  await db.query(
    `INSERT INTO violations (id, platform_id, avatar_ref, box_id, claim_id, identity_name, box_owner_platform_id, policy,
       enforcement, policy_config, status, severity, confidence, layer, classification, matched_variations,
       image_match_score, parody_likelihood, detected_at, grace_period_id)
     SELECT 'viol_bench' || i, 'plat_bench' || (i % ${PLATFORMS}), 'av_bench' || i, 'box_bench' || (i % ${BOXES}),
       'claim_bench' || (i % ${BOXES}), 'Bench Identity ' || (i % ${BOXES}), 'plat_owner', 'BLOCK_ALL', 'MODERATE', '{}',
       'pending', 'medium', 0.95, 1, 'EXACT_MATCH', '[]', NULL, 0, now() - interval '30 days', 'gp_bench' || i
     FROM generate_series(1, ${n}) AS i`,
  );
  await db.query(
    `INSERT INTO timeline_steps (grace_period_id, platform_id, kind, position, due_at, status, fired_at)
     SELECT g.id, g.platform_id, k.kind, k.position,
       CASE WHEN k.kind = 'expiry' THEN g.expires_at ELSE g.started_at + k.position * interval '7 days' END,
       CASE WHEN k.kind = 'expiry' THEN 'scheduled' ELSE 'fired' END,
       CASE WHEN k.kind = 'expiry' THEN NULL ELSE g.started_at + k.position * interval '7 days' END
     FROM grace_periods g
     CROSS JOIN (VALUES ('reminder_7', 0), ('reminder_21', 1), ('reminder_28', 2), ('ending', 3), ('expiry', 4))
       AS k(kind, position)`,
  );
  await db.query('ANALYZE');
}

/** Waits until the enforcement process answers `/readyz`. */
export async function waitReady(url: string, child: ChildProcess): Promise<void> {
  for (;;) {
    if (child.exitCode !== null) throw new Error(`enforcement exited with ${child.exitCode}`);
    try {
      if ((await fetch(`${url}/readyz`)).status === 200) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

export /** Removes the consumer's queue and its dead-letter queue from the shared broker. */
async function deleteQueue(amqpUrl: string, queue: string): Promise<void> {
  const connection = await connect(amqpUrl);
  try {
    const channel = await connection.createChannel();
    await channel.deleteQueue(queue);
    await channel.deleteQueue(`${queue}.dlq`);
  } finally {
    await connection.close().catch(() => undefined);
  }
}

/** A positive integer setting from the environment. */
export function intFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

export function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
