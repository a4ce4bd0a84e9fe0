import type { Queryable } from '@svc/storage';
import type { BoxStore, BoxView, LicenseFact, LicenseProjectionStore } from '../domain/ports';
import type { LicenseRecord } from '../domain/resolution-check';
import { fromJson, toDate, toDateOrNull } from '@svc/storage';

interface BoxRow {
  box_id: string;
  claim_id: string;
  owner_platform_id: string;
  identity_name: string;
  policy: string;
  enforcement: string;
  policy_config: unknown;
  updated_at: unknown;
  version: unknown;
  deleted_at: unknown;
}

function toBox(row: BoxRow): BoxView {
  return {
    boxId: row.box_id,
    claimId: row.claim_id,
    ownerPlatformId: row.owner_platform_id,
    identityName: row.identity_name,
    policy: row.policy as BoxView['policy'],
    enforcement: row.enforcement as BoxView['enforcement'],
    policyConfig: fromJson<Record<string, unknown>>(row.policy_config),
    updatedAt: toDate(row.updated_at),
    version: Number(row.version),
    deletedAt: toDateOrNull(row.deleted_at),
  };
}

/** The box projection (registry.box.* events). */
export class BoxRepository implements BoxStore {
  async upsert(tx: Queryable, box: BoxView): Promise<void> {
    await tx.query(
      `INSERT INTO boxes (box_id, claim_id, owner_platform_id, identity_name, policy, enforcement, policy_config,
         updated_at, version)
       VALUES ($1, $2, $3, $4, $5, $6, $7::jsonb, $8, $9)
       ON CONFLICT (box_id) DO UPDATE SET claim_id = EXCLUDED.claim_id, owner_platform_id = EXCLUDED.owner_platform_id,
         identity_name = EXCLUDED.identity_name, policy = EXCLUDED.policy, enforcement = EXCLUDED.enforcement,
         policy_config = EXCLUDED.policy_config, updated_at = EXCLUDED.updated_at, version = EXCLUDED.version
       WHERE boxes.deleted_at IS NULL
         AND (boxes.version, boxes.updated_at) <= (EXCLUDED.version, EXCLUDED.updated_at)`,
      [
        box.boxId,
        box.claimId,
        box.ownerPlatformId,
        box.identityName,
        box.policy,
        box.enforcement,
        JSON.stringify(box.policyConfig),
        box.updatedAt.toISOString(),
        box.version,
      ],
    );
  }

  async markDeleted(
    tx: Queryable,
    box: { boxId: string; claimId: string; ownerPlatformId: string; identityName: string },
    deletedAt: Date,
  ): Promise<void> {
    // A deletion may arrive before the creation (or without it): keep a tombstone either way.
    await tx.query(
      `INSERT INTO boxes (box_id, claim_id, owner_platform_id, identity_name, policy, enforcement, policy_config,
         updated_at, deleted_at)
       VALUES ($1, $2, $3, $4, 'OPEN', 'MODERATE', '{}'::jsonb, $5, $5)
       ON CONFLICT (box_id) DO UPDATE SET deleted_at = EXCLUDED.deleted_at WHERE boxes.deleted_at IS NULL`,
      [box.boxId, box.claimId, box.ownerPlatformId, box.identityName, deletedAt.toISOString()],
    );
  }

  async find(q: Queryable, boxId: string): Promise<BoxView | null> {
    const { rows } = await q.query<BoxRow>('SELECT * FROM boxes WHERE box_id = $1', [boxId]);
    const row = rows[0];
    return row === undefined ? null : toBox(row);
  }

  async findMany(q: Queryable, boxIds: string[]): Promise<Map<string, BoxView>> {
    const found = new Map<string, BoxView>();
    if (boxIds.length === 0) return found;
    const { rows } = await q.query<BoxRow>('SELECT * FROM boxes WHERE box_id = ANY($1)', [boxIds]);
    for (const row of rows) found.set(row.box_id, toBox(row));
    return found;
  }
}

/** The license projection (licensing.license.* events). */
export class LicenseProjectionRepository implements LicenseProjectionStore {
  async apply(tx: Queryable, fact: LicenseFact): Promise<boolean> {
    const { rows } = await tx.query(
      `INSERT INTO licenses (license_id, box_id, licensee_platform_id, status, tier, updated_at, version)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (license_id) DO UPDATE SET status = EXCLUDED.status, tier = EXCLUDED.tier,
         updated_at = EXCLUDED.updated_at, version = EXCLUDED.version
       WHERE (licenses.version, licenses.updated_at) <= (EXCLUDED.version, EXCLUDED.updated_at)
       RETURNING license_id`,
      [
        fact.licenseId,
        fact.boxId,
        fact.licenseePlatformId,
        fact.status,
        fact.tier,
        fact.updatedAt.toISOString(),
        fact.version,
      ],
    );
    return rows.length > 0;
  }

  async activeTiers(q: Queryable, platformId: string, boxId: string): Promise<string[]> {
    // A license projected before tiers were carried has no tier: '' covers non-commercial use only.
    const { rows } = await q.query<{ tier: string }>(
      `SELECT COALESCE(tier, '') AS tier FROM licenses
        WHERE licensee_platform_id = $1 AND box_id = $2 AND status = 'active'`,
      [platformId, boxId],
    );
    return rows.map((row) => row.tier);
  }

  async find(
    q: Queryable,
    licenseId: string,
    options: { lock?: boolean } = {},
  ): Promise<LicenseRecord | null> {
    const { rows } = await q.query<{
      license_id: string;
      box_id: string;
      licensee_platform_id: string;
      status: string;
      tier: string | null;
    }>(
      `SELECT license_id, box_id, licensee_platform_id, status, tier FROM licenses WHERE license_id = $1
       ${options.lock === true ? 'FOR UPDATE' : ''}`,
      [licenseId],
    );
    const row = rows[0];
    return row === undefined
      ? null
      : {
          licenseId: row.license_id,
          boxId: row.box_id,
          licenseePlatformId: row.licensee_platform_id,
          status: row.status,
          tier: row.tier,
        };
  }
}
