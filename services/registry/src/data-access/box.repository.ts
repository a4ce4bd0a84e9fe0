import { selectPage, type Queryable } from '@svc/storage';
import type { Box, Enforcement, Policy } from '../domain/box';
import type { ClaimStatus } from '../domain/claim';
import type { BoxStore, Page } from '../domain/ports';
import { fromJson, toDate } from '@svc/storage';

interface BoxRow {
  id: string;
  claim_id: string;
  owner_platform_id: string;
  policy: string;
  enforcement: string;
  policy_config: unknown;
  created_at: unknown;
  updated_at: unknown;
  identity_name: string;
  claim_status: string;
}

const COLUMNS = `b.id, b.claim_id, b.owner_platform_id, b.policy, b.enforcement, b.policy_config, b.created_at,
  b.updated_at, c.name AS identity_name, c.status AS claim_status`;

function toBox(row: BoxRow): Box & { claimStatus: ClaimStatus } {
  return {
    id: row.id,
    claimId: row.claim_id,
    ownerPlatformId: row.owner_platform_id,
    policy: row.policy as Policy,
    enforcement: row.enforcement as Enforcement,
    policyConfig: fromJson<Record<string, unknown>>(row.policy_config),
    status: 'active',
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
    identityName: row.identity_name,
    claimStatus: row.claim_status as ClaimStatus,
  };
}

/** Boxes; the identity name and the claim's status come from the claims table. */
export class BoxRepository implements BoxStore {
  async insert(tx: Queryable, box: Box): Promise<boolean> {
    const { rows } = await tx.query(
      `INSERT INTO boxes (id, claim_id, owner_platform_id, policy, enforcement, policy_config, status, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8, $9)
       ON CONFLICT (claim_id) DO NOTHING RETURNING id`,
      [
        box.id,
        box.claimId,
        box.ownerPlatformId,
        box.policy,
        box.enforcement,
        JSON.stringify(box.policyConfig),
        box.status,
        box.createdAt.toISOString(),
        box.updatedAt.toISOString(),
      ],
    );
    return rows.length === 1;
  }

  async update(tx: Queryable, box: Box): Promise<void> {
    await tx.query(
      `UPDATE boxes SET policy = $2, enforcement = $3, policy_config = $4::jsonb, updated_at = $5 WHERE id = $1`,
      [box.id, box.policy, box.enforcement, JSON.stringify(box.policyConfig), box.updatedAt.toISOString()],
    );
  }

  async find(
    q: Queryable,
    id: string,
    options: { lock?: boolean } = {},
  ): Promise<(Box & { claimStatus: ClaimStatus }) | null> {
    const { rows } = await q.query<BoxRow>(
      `SELECT ${COLUMNS} FROM boxes b JOIN claims c ON c.id = b.claim_id WHERE b.id = $1
       ${options.lock === true ? 'FOR UPDATE OF b' : ''}`,
      [id],
    );
    const row = rows[0];
    return row === undefined ? null : toBox(row);
  }

  async list(
    q: Queryable,
    filter: Page & { viewerPlatformId: string; policy?: string | undefined; claimId?: string | undefined },
  ): Promise<{ items: Box[]; total: number }> {
    const { rows, total } = await selectPage<BoxRow>(q, {
      select: COLUMNS,
      from: 'boxes b JOIN claims c ON c.id = b.claim_id',
      where: [`(b.owner_platform_id = $1 OR c.status = 'verified')`],
      params: [filter.viewerPlatformId],
      equals: [
        ['b.policy', filter.policy],
        ['b.claim_id', filter.claimId],
      ],
      orderBy: 'b.created_at DESC, b.seq DESC',
      limit: filter.limit,
      offset: filter.offset,
    });
    return { items: rows.map(toBox), total };
  }

  async delete(tx: Queryable, id: string): Promise<void> {
    await tx.query('DELETE FROM boxes WHERE id = $1', [id]);
  }
}
