import { jsonb, kyselyOn, pageOf, sql, type Queryable } from '@svc/storage';
import type { FaceStatus } from '@svc/contracts/common';
import type { Claim, ClaimStatus, EntityType } from '../domain/claim';
import { nameKeysContain, nameKeysOf } from './name-keys';
import type { ClaimStore, Page } from '../domain/ports';
import type { DB } from './db.generated';

const db = (q: Queryable) => kyselyOn<DB>(q);

/** The claims table with each claim's box id (from the boxes table). */
function claimsWithBox(q: Queryable) {
  return db(q)
    .selectFrom('claims as c')
    .leftJoin('boxes as b', 'b.claimId', 'c.id')
    .selectAll('c')
    .select('b.id as boxId');
}

type ClaimRow = Awaited<ReturnType<ReturnType<typeof claimsWithBox>['executeTakeFirstOrThrow']>>;

// The one mapping left: the dates inside the jsonb columns come back as ISO strings.
function toClaim({ seq: _seq, nameKeys: _nameKeys, ...row }: ClaimRow): Claim {
  return {
    ...row,
    verification:
      row.verification === null
        ? null
        : { ...row.verification, completedAt: new Date(row.verification.completedAt) },
    proofs: row.proofs.map((proof) => ({ ...proof, verifiedAt: new Date(proof.verifiedAt) })),
  };
}

function mutableColumns(claim: Claim) {
  return {
    variations: jsonb(claim.variations),
    status: claim.status,
    verificationTier: claim.verificationTier,
    verification: jsonb(claim.verification),
    proofs: jsonb(claim.proofs),
    referenceImages: jsonb(claim.referenceImages),
    rejectionReason: claim.rejectionReason,
    nameKeys: sql<string[]>`${nameKeysOf(claim)}::text[]`,
    updatedAt: claim.updatedAt,
    verifiedAt: claim.verifiedAt,
  };
}

/** Claims with their variations and reference images; the box id comes from the boxes table. */
export class ClaimRepository implements ClaimStore {
  async insert(tx: Queryable, claim: Claim): Promise<void> {
    await db(tx)
      .insertInto('claims')
      .values({
        ...mutableColumns(claim),
        id: claim.id,
        ownerPlatformId: claim.ownerPlatformId,
        name: claim.name,
        entityType: claim.entityType,
        createdAt: claim.createdAt,
      })
      .execute();
  }

  async update(tx: Queryable, claim: Claim): Promise<void> {
    await db(tx).updateTable('claims').set(mutableColumns(claim)).where('id', '=', claim.id).execute();
  }

  async recordFaceStatus(
    tx: Queryable,
    image: { claimId: string; imageId: string; url: string; status: FaceStatus },
  ): Promise<boolean> {
    // One statement, so that it composes with a concurrent change of the claim's images (which
    // holds the row's lock): the face goes on the item with this id and url, if it is still there.
    const face = JSON.stringify({ status: image.status });
    const result = await sql<{ id: string }>`
      UPDATE claims
         SET reference_images = (
               SELECT jsonb_agg(
                        CASE WHEN item->>'id' = ${image.imageId} AND item->>'url' = ${image.url}
                             THEN item || jsonb_build_object('face', ${face}::jsonb)
                             ELSE item END
                        ORDER BY position)
                 FROM jsonb_array_elements(reference_images) WITH ORDINALITY AS items(item, position))
       WHERE id = ${image.claimId}
         AND reference_images @> ${JSON.stringify([{ id: image.imageId, url: image.url }])}::jsonb
      RETURNING id`.execute(db(tx));
    return result.rows.length > 0;
  }

  async find(q: Queryable, id: string, options: { lock?: boolean } = {}): Promise<Claim | null> {
    const row = await claimsWithBox(q)
      .where('c.id', '=', id)
      .$if(options.lock === true, (query) => query.forUpdate('c'))
      .executeTakeFirst();
    return row === undefined ? null : toClaim(row);
  }

  async list(
    q: Queryable,
    filter: Page & {
      viewerPlatformId: string;
      owner?: 'me' | undefined;
      status?: ClaimStatus | undefined;
      entityType?: EntityType | undefined;
      q?: string | undefined;
    },
  ): Promise<{ items: Claim[]; total: number }> {
    // Others see verified claims only (docs/spec/contracts.md §6); the owner sees all of its own.
    let matching = claimsWithBox(q).where((eb) =>
      eb.or([eb('c.ownerPlatformId', '=', filter.viewerPlatformId), eb('c.status', '=', 'verified')]),
    );
    if (filter.owner === 'me') matching = matching.where('c.ownerPlatformId', '=', filter.viewerPlatformId);
    if (filter.status !== undefined) matching = matching.where('c.status', '=', filter.status);
    if (filter.entityType !== undefined) matching = matching.where('c.entityType', '=', filter.entityType);
    if (filter.q !== undefined) matching = matching.where(nameKeysContain('c.name_keys', filter.q));
    const { rows, total } = await pageOf(
      matching.orderBy('c.createdAt', 'desc').orderBy('c.seq', 'desc'),
      filter,
    );
    return { items: rows.map(toClaim), total };
  }

  async listForReview(
    q: Queryable,
    filter: Page & { status: ClaimStatus; q?: string | undefined },
  ): Promise<{ items: Claim[]; total: number }> {
    const { rows, total } = await pageOf(
      claimsWithBox(q)
        .where('c.status', '=', filter.status)
        .$if(filter.q !== undefined, (query) => query.where(nameKeysContain('c.name_keys', filter.q ?? '')))
        .orderBy('c.createdAt', 'asc')
        .orderBy('c.seq', 'asc'),
      filter,
    );
    return { items: rows.map(toClaim), total };
  }

  async conflictsOf(q: Queryable, claimIds: readonly string[]): Promise<Map<string, Claim[]>> {
    const conflicts = new Map<string, Claim[]>(claimIds.map((id) => [id, []]));
    if (claimIds.length === 0) return conflicts;
    // Another account's pending or verified claim sharing a name key (GIN index on name_keys).
    const rows = await db(q)
      .selectFrom('claims as r')
      .innerJoin('claims as c', (join) =>
        join
          .on(sql<boolean>`c.name_keys && r.name_keys`)
          .onRef('c.ownerPlatformId', '<>', 'r.ownerPlatformId'),
      )
      .leftJoin('boxes as b', 'b.claimId', 'c.id')
      .where('r.id', 'in', claimIds)
      .where('c.status', 'in', ['pending', 'verified'])
      .selectAll('c')
      .select(['b.id as boxId', 'r.id as conflictOf'])
      .orderBy('c.createdAt', 'asc')
      .orderBy('c.seq', 'asc')
      .execute();
    for (const { conflictOf, ...row } of rows) conflicts.get(conflictOf)?.push(toClaim(row));
    return conflicts;
  }

  async delete(tx: Queryable, id: string): Promise<void> {
    await db(tx).deleteFrom('claims').where('id', '=', id).execute();
  }

  async referencedUploads(q: Queryable, platformId: string, uploadIds: string[]): Promise<string[]> {
    // The id is the URL's last segment after /dashboard/uploads/, whatever the address before it.
    const { rows } = await sql<{ id: string }>`
      SELECT DISTINCT substring(image ->> 'url' from '/dashboard/uploads/([A-Za-z0-9_-]{24})$') AS id
      FROM claims, jsonb_array_elements(reference_images) AS image
      WHERE owner_platform_id = ${platformId}
        AND substring(image ->> 'url' from '/dashboard/uploads/([A-Za-z0-9_-]{24})$') = ANY(${uploadIds}::text[])
    `.execute(db(q));
    return rows.map((row) => row.id);
  }
}
