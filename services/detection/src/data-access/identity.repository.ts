import type { Queryable } from '@svc/storage';
import type { BoxTerms, IndexedIdentity } from '../domain/identity';
import type {
  BoxAnnouncement,
  BoxState,
  ClaimRemoval,
  ClaimState,
  IdentityChange,
  IdentityStore,
} from '../domain/ports';

interface IdentityRow {
  claim_id: string;
  owner_platform_id: string;
  name: string;
  variations: string[];
  entity_type: IndexedIdentity['entityType'];
  verification_tier: IndexedIdentity['verificationTier'];
  verified_at: Date | string;
  removed: boolean;
  box_id: string | null;
  policy: BoxTerms['policy'] | null;
  enforcement: BoxTerms['enforcement'] | null;
  policy_config: Record<string, unknown> | null;
  royalty_rate: number | null;
  boxed_at: Date | string | null;
  change_seq: string | number;
}

const COLUMNS = `claim_id, owner_platform_id, name, variations, entity_type, verification_tier, verified_at,
  removed, box_id, policy, enforcement, policy_config, royalty_rate, boxed_at, change_seq`;

// Any constant works: every projection writer takes this one lock, so they commit one at a time.
const CHANGE_LOCK = 7_340_211;
const NEXT_SEQ = `nextval('identity_change_seq')`;
// An event's claim state applies unless the stored one is later: the version first, then the
// registry's instant (the only order among events from before versions existed, ADR 0010).
const CLAIM_NOT_NEWER = `(identities.claim_version, identities.claim_updated_at) <= (EXCLUDED.claim_version, EXCLUDED.claim_updated_at)`;

function toIdentity(row: IdentityRow): IndexedIdentity {
  const box: BoxTerms | null =
    row.box_id !== null && row.policy !== null && row.enforcement !== null && row.boxed_at !== null
      ? {
          boxId: row.box_id,
          policy: row.policy,
          enforcement: row.enforcement,
          policyConfig: row.policy_config ?? {},
          royaltyRate: Number(row.royalty_rate ?? 0),
          boxedAt: new Date(row.boxed_at),
        }
      : null;
  return {
    claimId: row.claim_id,
    ownerPlatformId: row.owner_platform_id,
    name: row.name,
    variations: row.variations,
    entityType: row.entity_type,
    verificationTier: row.verification_tier,
    verifiedAt: new Date(row.verified_at),
    box,
  };
}

/** The identity projection and its reference images (detection's own tables). */
export class IdentityRepository implements IdentityStore {
  async lockForChange(tx: Queryable): Promise<void> {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [CHANGE_LOCK]);
  }

  async upsertClaim(tx: Queryable, claim: ClaimState): Promise<'applied' | 'stale'> {
    // The claim's version orders its events; its instant only orders unversioned ones (ADR 0010).
    const result = await tx.query(
      `INSERT INTO identities (claim_id, owner_platform_id, name, variations, entity_type, verification_tier,
         verified_at, claim_updated_at, claim_version, removed, change_seq)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, false, ${NEXT_SEQ})
       ON CONFLICT (claim_id) DO UPDATE SET
         owner_platform_id = EXCLUDED.owner_platform_id, name = EXCLUDED.name, variations = EXCLUDED.variations,
         entity_type = EXCLUDED.entity_type, verification_tier = EXCLUDED.verification_tier,
         verified_at = EXCLUDED.verified_at, claim_updated_at = EXCLUDED.claim_updated_at,
         claim_version = EXCLUDED.claim_version, removed = false, change_seq = EXCLUDED.change_seq
       WHERE ${CLAIM_NOT_NEWER}
       RETURNING claim_id`,
      [
        claim.claimId,
        claim.ownerPlatformId,
        claim.name,
        JSON.stringify(claim.variations),
        claim.entityType,
        claim.verificationTier,
        claim.verifiedAt.toISOString(),
        claim.updatedAt.toISOString(),
        claim.version,
      ],
    );
    return result.rows.length > 0 ? 'applied' : 'stale';
  }

  async removeClaim(tx: Queryable, removal: ClaimRemoval): Promise<'applied' | 'stale'> {
    // The row stays as a tombstone so that every replica sees the claim go, and a late, older
    // event of the claim cannot bring it back; one is written even when the claim was never
    // verified here (its verification may still be on its way, older than this removal). The
    // box stays with the row, and so does a pending box announcement: the registry keeps the box,
    // and a (re-)verification brings it back and announces it.
    const result = await tx.query(
      `INSERT INTO identities (claim_id, owner_platform_id, name, variations, entity_type, verification_tier,
         verified_at, claim_updated_at, claim_version, removed, change_seq)
       VALUES ($1, $2, '', '[]', 'INDIVIDUAL', 'BRONZE', 'epoch', $3, $4, true, ${NEXT_SEQ})
       ON CONFLICT (claim_id) DO UPDATE SET removed = true,
         claim_updated_at = EXCLUDED.claim_updated_at, claim_version = EXCLUDED.claim_version,
         change_seq = EXCLUDED.change_seq
       WHERE ${CLAIM_NOT_NEWER}
       RETURNING claim_id`,
      [removal.claimId, removal.ownerPlatformId, removal.at.toISOString(), removal.version],
    );
    if (result.rows.length === 0) return 'stale';
    await tx.query('DELETE FROM reference_images WHERE claim_id = $1', [removal.claimId]);
    return 'applied';
  }

  async upsertBox(tx: Queryable, box: BoxState): Promise<'applied' | 'stale'> {
    const deleted = await tx.query('SELECT 1 FROM deleted_boxes WHERE box_id = $1', [box.boxId]);
    if (deleted.rows.length > 0) return 'stale';
    // A box exists only for a verified claim, so a box event may bring the identity with it when
    // the claim's own event has not been applied yet; the claim's event then fills in the rest.
    // The same box: its version decides (then its instant, for unversioned events). Another box
    // of the claim: the one created later is the live one (the registry keeps one box per claim).
    const result = await tx.query(
      `INSERT INTO identities (claim_id, owner_platform_id, name, variations, entity_type, verification_tier,
         verified_at, claim_updated_at, removed, box_id, policy, enforcement, policy_config, royalty_rate,
         boxed_at, box_updated_at, box_version, box_announcement_due, change_seq)
       VALUES ($1, $2, $3, $4, $5, $6, $7, 'epoch', false, $8, $9, $10, $11, $12, $7, $13, $14, true, ${NEXT_SEQ})
       ON CONFLICT (claim_id) DO UPDATE SET
         box_id = EXCLUDED.box_id, policy = EXCLUDED.policy, enforcement = EXCLUDED.enforcement,
         policy_config = EXCLUDED.policy_config, royalty_rate = EXCLUDED.royalty_rate,
         boxed_at = CASE WHEN identities.box_id = EXCLUDED.box_id THEN identities.boxed_at ELSE EXCLUDED.boxed_at END,
         box_updated_at = EXCLUDED.box_updated_at, box_version = EXCLUDED.box_version,
         box_announcement_due = true, change_seq = EXCLUDED.change_seq
       WHERE identities.box_id IS NULL
          OR (identities.box_id = EXCLUDED.box_id
              AND (identities.box_version, identities.box_updated_at) <= (EXCLUDED.box_version, EXCLUDED.box_updated_at))
          OR (identities.box_id <> EXCLUDED.box_id AND identities.boxed_at <= EXCLUDED.boxed_at)
       RETURNING claim_id`,
      [
        box.claimId,
        box.ownerPlatformId,
        box.identityName,
        JSON.stringify(box.variations),
        box.entityType,
        box.verificationTier,
        box.boxedAt.toISOString(),
        box.boxId,
        box.policy,
        box.enforcement,
        JSON.stringify(box.policyConfig),
        box.royaltyRate,
        box.updatedAt.toISOString(),
        box.version,
      ],
    );
    return result.rows.length > 0 ? 'applied' : 'stale';
  }

  async removeBox(tx: Queryable, boxId: string): Promise<void> {
    await tx.query('INSERT INTO deleted_boxes (box_id) VALUES ($1) ON CONFLICT (box_id) DO NOTHING', [boxId]);
    await tx.query(
      `UPDATE identities SET box_id = NULL, policy = NULL, enforcement = NULL, policy_config = NULL,
         royalty_rate = NULL, boxed_at = NULL, box_updated_at = NULL, box_version = 0,
         box_announcement_due = false, change_seq = ${NEXT_SEQ}
       WHERE box_id = $1`,
      [boxId],
    );
  }

  async replaceReferenceImages(
    tx: Queryable,
    claimId: string,
    images: { id: string; url: string }[],
    now: Date,
  ): Promise<void> {
    const ids = images.map((image) => image.id);
    await tx.query('DELETE FROM reference_images WHERE claim_id = $1 AND NOT (image_id = ANY($2::text[]))', [
      claimId,
      ids,
    ]);
    for (const image of images) {
      // The same id with another URL is another picture: fingerprint it again.
      await tx.query(
        `INSERT INTO reference_images (image_id, claim_id, url, state, next_attempt_at)
         VALUES ($1, $2, $3, 'pending', $4)
         ON CONFLICT (image_id) DO UPDATE SET url = EXCLUDED.url, claim_id = EXCLUDED.claim_id, state = 'pending',
           fingerprint = NULL, attempts = 0, next_attempt_at = EXCLUDED.next_attempt_at, last_error = NULL
         WHERE reference_images.url <> EXCLUDED.url OR reference_images.claim_id <> EXCLUDED.claim_id`,
        [image.id, claimId, image.url, now.toISOString()],
      );
    }
  }

  async takeBoxAnnouncement(tx: Queryable, claimId: string): Promise<BoxAnnouncement | null> {
    // Settled: every image has had its first attempt (a failing URL must not hold the box back).
    const pending = await tx.query<{ pending: string | number; indexed: string | number }>(
      `SELECT count(*) FILTER (WHERE state = 'pending' AND attempts = 0) AS pending, count(*) FILTER (WHERE state = 'indexed') AS indexed
       FROM reference_images WHERE claim_id = $1`,
      [claimId],
    );
    const counts = pending.rows[0];
    if (counts === undefined || Number(counts.pending) > 0) return null;
    const found = await tx.query<IdentityRow & { announced_box_ids: string[] }>(
      `SELECT ${COLUMNS}, announced_box_ids FROM identities
       WHERE claim_id = $1 AND box_announcement_due AND box_id IS NOT NULL AND NOT removed`,
      [claimId],
    );
    const row = found.rows[0];
    if (row === undefined || row.box_id === null) return null;
    const firstIndexed = !row.announced_box_ids.includes(row.box_id);
    await tx.query(
      `UPDATE identities SET box_announcement_due = false, announced_box_ids = $2 WHERE claim_id = $1`,
      [
        claimId,
        JSON.stringify(firstIndexed ? [...row.announced_box_ids, row.box_id] : row.announced_box_ids),
      ],
    );
    return { identity: toIdentity(row), firstIndexed, referenceImagesIndexed: Number(counts.indexed) };
  }

  async changesAfter(db: Queryable, changeSeq: number, limit: number): Promise<IdentityChange[]> {
    const result = await db.query<IdentityRow>(
      `SELECT ${COLUMNS} FROM identities WHERE change_seq > $1 ORDER BY change_seq LIMIT $2`,
      [changeSeq, limit],
      { name: 'detection_identity_changes' },
    );
    return result.rows.map((row) => ({
      claimId: row.claim_id,
      changeSeq: Number(row.change_seq),
      identity: row.removed ? null : toIdentity(row),
    }));
  }

  async projectionState(db: Queryable): Promise<{ projectionId: string; lastChangeSeq: number }> {
    const result = await db.query<{ projection_id: string; last_seq: string | number | null }>(
      `SELECT (SELECT projection_id FROM projection_identity LIMIT 1) AS projection_id,
         (SELECT max(change_seq) FROM identities) AS last_seq`,
    );
    const row = result.rows[0];
    return { projectionId: row?.projection_id ?? '', lastChangeSeq: Number(row?.last_seq ?? 0) };
  }

  /** Indexed fingerprints of the current format (an older one waits to be recomputed: ADR 0015). */
  async referenceFingerprintsOf(
    db: Queryable,
    claimIds: string[],
  ): Promise<Map<string, { imageId: string; hex: string }[]>> {
    const out = new Map<string, { imageId: string; hex: string }[]>();
    if (claimIds.length === 0) return out;
    const result = await db.query<{ claim_id: string; image_id: string; fingerprint: string }>(
      `SELECT claim_id, image_id, fingerprint FROM reference_images
       WHERE claim_id = ANY($1::text[]) AND state = 'indexed' AND fingerprint LIKE 'v2:%'
       ORDER BY claim_id, image_id`,
      [claimIds],
    );
    for (const row of result.rows) {
      const list = out.get(row.claim_id) ?? [];
      list.push({ imageId: row.image_id, hex: row.fingerprint });
      out.set(row.claim_id, list);
    }
    return out;
  }
}
