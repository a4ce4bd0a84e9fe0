import { selectPage, type Queryable } from '@svc/storage';
import type { Claim, ClaimStatus, EntityType, Proof, ReferenceImage, Verification } from '../domain/claim';
import type { ClaimStore, Page } from '../domain/ports';
import { fromJson, toDate, toDateOrNull } from '@svc/storage';

interface ClaimRow {
  id: string;
  owner_platform_id: string;
  name: string;
  variations: unknown;
  entity_type: string;
  status: string;
  verification_tier: string;
  verification: unknown;
  proofs: unknown;
  reference_images: unknown;
  rejection_reason: string | null;
  created_at: unknown;
  updated_at: unknown;
  verified_at: unknown;
  box_id: string | null;
}

const COLUMNS = `c.id, c.owner_platform_id, c.name, c.variations, c.entity_type, c.status, c.verification_tier,
  c.verification, c.proofs, c.reference_images, c.rejection_reason, c.created_at, c.updated_at, c.verified_at,
  b.id AS box_id`;

function toClaim(row: ClaimRow): Claim {
  const verification = fromJson<{ method: string; completedAt: string; documents: string[] } | null>(
    row.verification,
  );
  return {
    id: row.id,
    ownerPlatformId: row.owner_platform_id,
    name: row.name,
    variations: fromJson<string[]>(row.variations),
    entityType: row.entity_type as EntityType,
    status: row.status as ClaimStatus,
    verificationTier: row.verification_tier as Claim['verificationTier'],
    verification:
      verification === null
        ? null
        : ({ ...verification, completedAt: toDate(verification.completedAt) } satisfies Verification),
    proofs: fromJson<{ type: string; platform: string; handle: string; verifiedAt: string }[]>(
      row.proofs,
    ).map((proof): Proof => ({ ...proof, verifiedAt: toDate(proof.verifiedAt) })),
    referenceImages: fromJson<ReferenceImage[]>(row.reference_images),
    rejectionReason: row.rejection_reason,
    createdAt: toDate(row.created_at),
    updatedAt: toDate(row.updated_at),
    verifiedAt: toDateOrNull(row.verified_at),
    boxId: row.box_id,
  };
}

function mutableValues(claim: Claim): unknown[] {
  return [
    JSON.stringify(claim.variations),
    claim.status,
    claim.verificationTier,
    claim.verification === null ? null : JSON.stringify(claim.verification),
    JSON.stringify(claim.proofs),
    JSON.stringify(claim.referenceImages),
    claim.rejectionReason,
    claim.updatedAt.toISOString(),
    claim.verifiedAt?.toISOString() ?? null,
  ];
}

/** Claims with their variations and reference images; the box id comes from the boxes table. */
export class ClaimRepository implements ClaimStore {
  async insert(tx: Queryable, claim: Claim): Promise<void> {
    await tx.query(
      `INSERT INTO claims (variations, status, verification_tier, verification, proofs, reference_images,
         rejection_reason, updated_at, verified_at, id, owner_platform_id, name, entity_type, created_at)
       VALUES ($1::jsonb, $2, $3, $4::jsonb, $5::jsonb, $6::jsonb, $7, $8, $9, $10, $11, $12, $13, $14)`,
      [
        ...mutableValues(claim),
        claim.id,
        claim.ownerPlatformId,
        claim.name,
        claim.entityType,
        claim.createdAt.toISOString(),
      ],
    );
  }

  async update(tx: Queryable, claim: Claim): Promise<void> {
    await tx.query(
      `UPDATE claims SET variations = $1::jsonb, status = $2, verification_tier = $3, verification = $4::jsonb,
         proofs = $5::jsonb, reference_images = $6::jsonb, rejection_reason = $7, updated_at = $8, verified_at = $9
       WHERE id = $10`,
      [...mutableValues(claim), claim.id],
    );
  }

  async find(q: Queryable, id: string, options: { lock?: boolean } = {}): Promise<Claim | null> {
    const { rows } = await q.query<ClaimRow>(
      `SELECT ${COLUMNS} FROM claims c LEFT JOIN boxes b ON b.claim_id = c.id WHERE c.id = $1
       ${options.lock === true ? 'FOR UPDATE OF c' : ''}`,
      [id],
    );
    const row = rows[0];
    return row === undefined ? null : toClaim(row);
  }

  async list(
    q: Queryable,
    filter: Page & {
      viewerPlatformId: string;
      status?: ClaimStatus | undefined;
      entityType?: EntityType | undefined;
    },
  ): Promise<{ items: Claim[]; total: number }> {
    // Others see verified claims only (docs/spec/contracts.md §6); the owner sees all of its own.
    const { rows, total } = await selectPage<ClaimRow>(q, {
      select: COLUMNS,
      from: 'claims c LEFT JOIN boxes b ON b.claim_id = c.id',
      where: [`(c.owner_platform_id = $1 OR c.status = 'verified')`],
      params: [filter.viewerPlatformId],
      equals: [
        ['c.status', filter.status],
        ['c.entity_type', filter.entityType],
      ],
      orderBy: 'c.created_at DESC, c.seq DESC',
      limit: filter.limit,
      offset: filter.offset,
    });
    return { items: rows.map(toClaim), total };
  }

  async delete(tx: Queryable, id: string): Promise<void> {
    await tx.query('DELETE FROM claims WHERE id = $1', [id]);
  }
}
