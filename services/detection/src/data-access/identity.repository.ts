import { executeNamed, jsonb, kyselyOn, sql, type Queryable } from '@svc/storage';
import type { IndexedIdentity } from '../domain/identity';
import type {
  BoxAnnouncement,
  BoxState,
  ClaimRemoval,
  ClaimState,
  IdentityChange,
  IdentityStore,
} from '../domain/ports';
import type { DB } from './db.generated';
import { ReferenceImageRepository, type StoredReference } from './reference-image.repository';

const db = (q: Queryable) => kyselyOn<DB>(q);

// Any constant works: every projection writer takes this one lock, so they commit one at a time.
const CHANGE_LOCK = 7_340_211;
const nextSeq = () => sql<number>`nextval('identity_change_seq')`;
// An event's claim state applies unless the stored one is later: the version first, then the
// registry's instant (the only order among events from before versions existed, ADR 0010).
const claimNotNewer = sql<boolean>`(${sql.ref('identities.claimVersion')}, ${sql.ref('identities.claimUpdatedAt')})
  <= (${sql.ref('excluded.claimVersion')}, ${sql.ref('excluded.claimUpdatedAt')})`;

const IDENTITY = [
  'claimId',
  'ownerPlatformId',
  'name',
  'variations',
  'entityType',
  'verificationTier',
  'verifiedAt',
  'removed',
  'boxId',
  'policy',
  'enforcement',
  'policyConfig',
  'royaltyRate',
  'boxedAt',
  'changeSeq',
] as const;

function identities(q: Queryable) {
  return db(q).selectFrom('identities').select(IDENTITY);
}

type IdentityRow = Awaited<ReturnType<ReturnType<typeof identities>['executeTakeFirstOrThrow']>>;

// The one mapping left: the box's columns make one nested value, or null without a box.
function toIdentity(row: IdentityRow): IndexedIdentity {
  const { boxId, policy, enforcement, policyConfig, royaltyRate, boxedAt } = row;
  return {
    claimId: row.claimId,
    ownerPlatformId: row.ownerPlatformId,
    name: row.name,
    variations: row.variations,
    entityType: row.entityType,
    verificationTier: row.verificationTier,
    verifiedAt: row.verifiedAt,
    box:
      boxId !== null && policy !== null && enforcement !== null && boxedAt !== null
        ? {
            boxId,
            policy,
            enforcement,
            policyConfig: policyConfig ?? {},
            royaltyRate: royaltyRate ?? 0,
            boxedAt,
          }
        : null,
  };
}

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
    const applied = await db(tx)
      .insertInto('identities')
      .values({
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
      })
      .onConflict((conflict) =>
        conflict
          .column('claimId')
          .doUpdateSet((eb) => ({
            ownerPlatformId: eb.ref('excluded.ownerPlatformId'),
            name: eb.ref('excluded.name'),
            variations: eb.ref('excluded.variations'),
            entityType: eb.ref('excluded.entityType'),
            verificationTier: eb.ref('excluded.verificationTier'),
            verifiedAt: eb.ref('excluded.verifiedAt'),
            claimUpdatedAt: eb.ref('excluded.claimUpdatedAt'),
            claimVersion: eb.ref('excluded.claimVersion'),
            removed: false,
            changeSeq: eb.ref('excluded.changeSeq'),
          }))
          .where(claimNotNewer),
      )
      .returning('claimId')
      .executeTakeFirst();
    return applied === undefined ? 'stale' : 'applied';
  }

  async removeClaim(tx: Queryable, removal: ClaimRemoval): Promise<'applied' | 'stale'> {
    // The row stays as a tombstone so that every replica sees the claim go, and a late, older
    // event of the claim cannot bring it back; one is written even when the claim was never
    // verified here (its verification may still be on its way, older than this removal). The
    // box stays with the row, and so does a pending box announcement: the registry keeps the box,
    // and a (re-)verification brings it back and announces it.
    const applied = await db(tx)
      .insertInto('identities')
      .values({
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
      })
      .onConflict((conflict) =>
        conflict
          .column('claimId')
          .doUpdateSet((eb) => ({
            removed: true,
            claimUpdatedAt: eb.ref('excluded.claimUpdatedAt'),
            claimVersion: eb.ref('excluded.claimVersion'),
            changeSeq: eb.ref('excluded.changeSeq'),
          }))
          .where(claimNotNewer),
      )
      .returning('claimId')
      .executeTakeFirst();
    if (applied === undefined) return 'stale';
    await this.referenceImages.deleteOfClaim(tx, removal.claimId);
    return 'applied';
  }

  async upsertBox(tx: Queryable, box: BoxState): Promise<'applied' | 'stale'> {
    const deleted = await db(tx)
      .selectFrom('deletedBoxes')
      .select('boxId')
      .where('boxId', '=', box.boxId)
      .executeTakeFirst();
    if (deleted !== undefined) return 'stale';
    // A box exists only for a verified claim, so a box event may bring the identity with it when
    // the claim's own event has not been applied yet; the claim's event then fills in the rest.
    // The identity it brings is the claim at the version the event carries: a claim event older
    // than that (its creation, pending, redelivered behind the box after an outage) is stale and
    // must not take the identity out of the index while the box's initial scan runs.
    // The same box: its version decides (then its instant, for unversioned events). Another box
    // of the claim: the one created later is the live one (the registry keeps one box per claim).
    const applied = await db(tx)
      .insertInto('identities')
      .values({
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
      })
      .onConflict((conflict) =>
        conflict
          .column('claimId')
          .doUpdateSet((eb) => ({
            boxId: eb.ref('excluded.boxId'),
            policy: eb.ref('excluded.policy'),
            enforcement: eb.ref('excluded.enforcement'),
            policyConfig: eb.ref('excluded.policyConfig'),
            royaltyRate: eb.ref('excluded.royaltyRate'),
            boxedAt: eb
              .case()
              .when('identities.boxId', '=', eb.ref('excluded.boxId'))
              .then(eb.ref('identities.boxedAt'))
              .else(eb.ref('excluded.boxedAt'))
              .end(),
            boxUpdatedAt: eb.ref('excluded.boxUpdatedAt'),
            boxVersion: eb.ref('excluded.boxVersion'),
            boxAnnouncementDue: true,
            changeSeq: eb.ref('excluded.changeSeq'),
          }))
          .where((eb) =>
            eb.or([
              eb('identities.boxId', 'is', null),
              eb.and([
                eb('identities.boxId', '=', eb.ref('excluded.boxId')),
                eb(
                  eb.refTuple('identities.boxVersion', 'identities.boxUpdatedAt'),
                  '<=',
                  eb.refTuple('excluded.boxVersion', 'excluded.boxUpdatedAt'),
                ),
              ]),
              eb.and([
                eb('identities.boxId', '<>', eb.ref('excluded.boxId')),
                eb('identities.boxedAt', '<=', eb.ref('excluded.boxedAt')),
              ]),
            ]),
          ),
      )
      .returning('claimId')
      .executeTakeFirst();
    return applied === undefined ? 'stale' : 'applied';
  }

  async removeBox(tx: Queryable, boxId: string): Promise<void> {
    await db(tx)
      .insertInto('deletedBoxes')
      .values({ boxId })
      .onConflict((conflict) => conflict.column('boxId').doNothing())
      .execute();
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
