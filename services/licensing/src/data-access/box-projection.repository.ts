import type { Policy } from '@svc/contracts';
import type { Queryable } from '@svc/storage';
import type { BoxView } from '../domain/box';
import type { BoxProjectionStore } from '../domain/ports';
import { fromJson, toDate, toDateOrNull, toNumber } from '@svc/storage';

interface BoxRow {
  box_id: string;
  claim_id: string;
  owner_platform_id: string;
  identity_name: string;
  policy: string;
  policy_config: unknown;
  royalty_rate: unknown;
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
    policy: row.policy as Policy,
    policyConfig: fromJson<Record<string, unknown>>(row.policy_config),
    royaltyRate: toNumber(row.royalty_rate),
    updatedAt: toDate(row.updated_at),
    version: toNumber(row.version),
    deletedAt: toDateOrNull(row.deleted_at),
  };
}

/** The box projection (registry.box.* events). */
export class BoxProjectionRepository implements BoxProjectionStore {
  async upsert(tx: Queryable, box: BoxView): Promise<void> {
    await tx.query(
      `INSERT INTO boxes (box_id, claim_id, owner_platform_id, identity_name, policy, policy_config, royalty_rate,
         updated_at, version)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9)
       ON CONFLICT (box_id) DO UPDATE SET claim_id = EXCLUDED.claim_id, owner_platform_id = EXCLUDED.owner_platform_id,
         identity_name = EXCLUDED.identity_name, policy = EXCLUDED.policy, policy_config = EXCLUDED.policy_config,
         royalty_rate = EXCLUDED.royalty_rate, updated_at = EXCLUDED.updated_at, version = EXCLUDED.version
       WHERE boxes.deleted_at IS NULL
         AND (boxes.version, boxes.updated_at) <= (EXCLUDED.version, EXCLUDED.updated_at)`,
      [
        box.boxId,
        box.claimId,
        box.ownerPlatformId,
        box.identityName,
        box.policy,
        JSON.stringify(box.policyConfig),
        box.royaltyRate,
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
    // A deletion may arrive before the creation: keep a tombstone, so the creation changes nothing.
    await tx.query(
      `INSERT INTO boxes (box_id, claim_id, owner_platform_id, identity_name, policy, updated_at, deleted_at)
       VALUES ($1, $2, $3, $4, 'OPEN', $5, $5)
       ON CONFLICT (box_id) DO UPDATE SET deleted_at = EXCLUDED.deleted_at WHERE boxes.deleted_at IS NULL`,
      [box.boxId, box.claimId, box.ownerPlatformId, box.identityName, deletedAt.toISOString()],
    );
  }

  async find(q: Queryable, id: string): Promise<BoxView | null> {
    const { rows } = await q.query<BoxRow>('SELECT * FROM boxes WHERE box_id = $1', [id]);
    const row = rows[0];
    return row === undefined ? null : toBox(row);
  }

  async findByIdentity(q: Queryable, identityId: string): Promise<BoxView | null> {
    // A claim may have had a deleted box and a new one: the live one first, then the newest.
    const { rows } = await q.query<BoxRow>(
      `SELECT * FROM boxes WHERE box_id = $1 OR claim_id = $1
       ORDER BY (deleted_at IS NULL) DESC, updated_at DESC LIMIT 1`,
      [identityId],
    );
    const row = rows[0];
    return row === undefined ? null : toBox(row);
  }
}
