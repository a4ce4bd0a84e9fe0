import { ProjectionTable, Tombstones } from '@svc/projection';
import { executeNamed, jsonb, kyselyOn, sql, type Queryable } from '@svc/storage';
import type {
  BoxAnnouncement,
  BoxState,
  ClaimRemoval,
  ClaimState,
  IdentityChange,
  IdentityStore,
} from '../domain/ports';
import type { DB } from './db.generated';
import { identities, toIdentity } from './identity-row';
import { ReferenceImageRepository, type StoredReference } from './reference-image.repository';

const db = (q: Queryable) => kyselyOn<DB>(q);

// Any constant works: every projection writer takes this one lock, so they commit one at a time.
const CHANGE_LOCK = 7_340_211;
const nextSeq = () => sql<number>`nextval('identity_change_seq')`;
// One row per claim holds two of the registry's entities, each with its own position (ADR 0010):
// the claim (a removal is a state like any other, kept as `removed`) and its box.
const claims = new ProjectionTable<DB, 'identities'>({
  table: 'identities',
  key: 'claimId',
  version: 'claimVersion',
  at: 'claimUpdatedAt',
});
const boxesOfClaims = new ProjectionTable<DB, 'identities'>({
  table: 'identities',
  key: 'claimId',
  version: 'boxVersion',
  at: 'boxUpdatedAt',
});
const BOX_COLUMNS = [
  'boxId',
  'policy',
  'enforcement',
  'policyConfig',
  'royaltyRate',
  'boxUpdatedAt',
  'boxVersion',
  'boxAnnouncementDue',
  'changeSeq',
] as const;
// A deleted box never comes back, whatever arrives after its deletion.
const deletedBoxes = new Tombstones<DB, 'deletedBoxes'>('deletedBoxes', 'boxId');

/**
 * The identity projection (identities, and deleted_boxes for the boxes that never come back);
 * its claims' reference images are the ReferenceImageRepository's table.
 */
export class IdentityRepository implements IdentityStore {
  constructor(private readonly referenceImages = new ReferenceImageRepository()) {}

  async lockForChange(tx: Queryable): Promise<void> {
    await sql`SELECT pg_advisory_xact_lock(${CHANGE_LOCK})`.execute(db(tx));
  }

  async upsertClaim(tx: Queryable, claim: ClaimState): Promise<'applied' | 'stale'> {
    const applied = await claims.upsertIfNewer(tx, {
      claimId: claim.claimId,
      ownerPlatformId: claim.ownerPlatformId,
      name: claim.name,
      variations: jsonb(claim.variations),
      entityType: claim.entityType,
      verificationTier: claim.verificationTier,
      verifiedAt: claim.verifiedAt,
      claimUpdatedAt: claim.updatedAt,
      claimVersion: claim.version,
      removed: false,
      changeSeq: nextSeq(),
    });
    return applied ? 'applied' : 'stale';
  }

  async removeClaim(tx: Queryable, removal: ClaimRemoval): Promise<'applied' | 'stale'> {
    // The row stays as a tombstone so that every replica sees the claim go, and a late, older
    // event of the claim cannot bring it back; one is written even when the claim was never
    // verified here (its verification may still be on its way, older than this removal). The
    // box stays with the row, and so does a pending box announcement: the registry keeps the box,
    // and a (re-)verification brings it back and announces it.
    const applied = await claims.upsertIfNewer(
      tx,
      {
        claimId: removal.claimId,
        ownerPlatformId: removal.ownerPlatformId,
        name: '',
        variations: jsonb([]),
        entityType: 'INDIVIDUAL',
        verificationTier: 'BRONZE',
        verifiedAt: sql.lit('epoch'),
        claimUpdatedAt: removal.at,
        claimVersion: removal.version,
        removed: true,
        changeSeq: nextSeq(),
      },
      { update: ['removed', 'claimUpdatedAt', 'claimVersion', 'changeSeq'] },
    );
    if (!applied) return 'stale';
    await this.referenceImages.deleteOfClaim(tx, removal.claimId);
    return 'applied';
  }

  async upsertBox(tx: Queryable, box: BoxState): Promise<'applied' | 'stale'> {
    if (await deletedBoxes.isBuried(tx, box.boxId)) return 'stale';
    // A box exists only for a verified claim, so a box event may bring the identity with it when
    // the claim's own event has not been applied yet; the claim's event then fills in the rest.
    // The identity it brings is the claim at the version the event carries: a claim event older
    // than that (its creation, pending, redelivered behind the box after an outage) is stale and
    // must not take the identity out of the index while the box's initial scan runs.
    // The same box: its version decides (then its instant, for unversioned events). Another box
    // of the claim: the one created later is the live one (the registry keeps one box per claim).
    const applied = await boxesOfClaims.upsertIfNewer(
      tx,
      {
        claimId: box.claimId,
        ownerPlatformId: box.ownerPlatformId,
        name: box.identityName,
        variations: jsonb(box.variations),
        entityType: box.entityType,
        verificationTier: box.verificationTier,
        verifiedAt: box.boxedAt,
        claimUpdatedAt: sql.lit('epoch'),
        claimVersion: box.claimVersion,
        removed: false,
        boxId: box.boxId,
        policy: box.policy,
        enforcement: box.enforcement,
        policyConfig: jsonb(box.policyConfig),
        royaltyRate: box.royaltyRate,
        boxedAt: box.boxedAt,
        boxUpdatedAt: box.updatedAt,
        boxVersion: box.version,
        boxAnnouncementDue: true,
        changeSeq: nextSeq(),
      },
      {
        update: BOX_COLUMNS,
        // The same box keeps the instant it was first boxed at.
        set: ({ stored, incoming }) => ({
          boxedAt: sql`CASE WHEN ${stored('boxId')} = ${incoming('boxId')}
            THEN ${stored('boxedAt')} ELSE ${incoming('boxedAt')} END`,
        }),
        guard: ({ stored, incoming, newer }) => sql<boolean>`${stored('boxId')} IS NULL
          OR (${stored('boxId')} = ${incoming('boxId')} AND ${newer})
          OR (${stored('boxId')} <> ${incoming('boxId')} AND ${stored('boxedAt')} <= ${incoming('boxedAt')})`,
      },
    );
    return applied ? 'applied' : 'stale';
  }

  async removeBox(tx: Queryable, boxId: string): Promise<void> {
    await deletedBoxes.bury(tx, boxId);
    await db(tx)
      .updateTable('identities')
      .set({
        boxId: null,
        policy: null,
        enforcement: null,
        policyConfig: null,
        royaltyRate: null,
        boxedAt: null,
        boxUpdatedAt: null,
        boxVersion: 0,
        boxAnnouncementDue: false,
        changeSeq: nextSeq(),
      })
      .where('boxId', '=', boxId)
      .execute();
  }

  async replaceReferenceImages(
    tx: Queryable,
    claimId: string,
    images: { id: string; url: string }[],
    now: Date,
  ): Promise<void> {
    await this.referenceImages.replace(tx, claimId, images, now);
  }

  async takeBoxAnnouncement(tx: Queryable, claimId: string): Promise<BoxAnnouncement | null> {
    // Settled: every image has had its first attempt (a failing URL must not hold the box back).
    const counts = await this.referenceImages.countsOf(tx, claimId);
    if (counts.firstAttemptDue > 0) return null;
    const row = await identities(tx)
      .select('announcedBoxIds')
      .where('claimId', '=', claimId)
      .where((eb) => eb.ref('boxAnnouncementDue'))
      .where('boxId', 'is not', null)
      .where((eb) => eb.not(eb.ref('removed')))
      .executeTakeFirst();
    if (row === undefined || row.boxId === null) return null;
    const firstIndexed = !row.announcedBoxIds.includes(row.boxId);
    await db(tx)
      .updateTable('identities')
      .set({
        boxAnnouncementDue: false,
        announcedBoxIds: jsonb(firstIndexed ? [...row.announcedBoxIds, row.boxId] : row.announcedBoxIds),
      })
      .where('claimId', '=', claimId)
      .execute();
    return { identity: toIdentity(row), firstIndexed, referenceImagesIndexed: counts.indexed };
  }

  /** Change `changeSeq` onwards, one page of `limit` (a replica pages through a million on start). */
  async changesAfter(q: Queryable, changeSeq: number, limit: number): Promise<IdentityChange[]> {
    const { rows } = await executeNamed(
      q,
      'detection_identity_changes',
      identities(q).where('changeSeq', '>', changeSeq).orderBy('changeSeq').limit(limit),
    );
    return rows.map((row) => ({
      claimId: row.claimId,
      changeSeq: row.changeSeq,
      identity: row.removed ? null : toIdentity(row),
    }));
  }

  async projectionState(q: Queryable): Promise<{ projectionId: string; lastChangeSeq: number }> {
    const row = await db(q)
      .selectNoFrom((eb) => [
        eb.selectFrom('projectionIdentity').select('projectionId').limit(sql.lit(1)).as('projectionId'),
        eb
          .selectFrom('identities')
          .select((max) => max.fn.max('changeSeq').as('lastSeq'))
          .as('lastSeq'),
      ])
      .executeTakeFirst();
    return { projectionId: row?.projectionId ?? '', lastChangeSeq: Number(row?.lastSeq ?? 0) };
  }

  /** The identity changed (a new fingerprint of its pictures): replicas read it again. */
  async touch(tx: Queryable, claimId: string): Promise<void> {
    await db(tx)
      .updateTable('identities')
      .set({ changeSeq: nextSeq() })
      .where('claimId', '=', claimId)
      .where((eb) => eb.not(eb.ref('removed')))
      .execute();
  }

  async ownerOf(q: Queryable, claimId: string): Promise<string | null> {
    const row = await db(q)
      .selectFrom('identities')
      .select('ownerPlatformId')
      .where('claimId', '=', claimId)
      .executeTakeFirst();
    return row?.ownerPlatformId ?? null;
  }

  async referencesOf(
    q: Queryable,
    claimIds: string[],
    faceModel: string,
  ): Promise<Map<string, StoredReference[]>> {
    return this.referenceImages.referencesOf(q, claimIds, faceModel);
  }
}
