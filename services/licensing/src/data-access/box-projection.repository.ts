import { ProjectionTable } from '@svc/projection';
import { jsonb, kyselyOn, type Queryable } from '@svc/storage';
import type { BoxView } from '../domain/box';
import type { BoxProjectionStore } from '../domain/ports';
import type { DB } from './db.generated';

const db = (q: Queryable) => kyselyOn<DB>(q);

// The registry's boxes: a deleted one stays deleted (deletedAt, ADR 0010).
const boxes = new ProjectionTable<DB, 'boxes'>({
  table: 'boxes',
  key: 'boxId',
  version: 'version',
  at: 'updatedAt',
  tombstone: 'deletedAt',
});

/** The box projection (registry.box.* events). */
export class BoxProjectionRepository implements BoxProjectionStore {
  async upsert(tx: Queryable, box: BoxView): Promise<void> {
    // A tombstone stays; an older event (by version, then time: ADR 0010) changes nothing.
    await boxes.upsertIfNewer(tx, {
      boxId: box.boxId,
      claimId: box.claimId,
      ownerPlatformId: box.ownerPlatformId,
      identityName: box.identityName,
      policy: box.policy,
      policyConfig: jsonb(box.policyConfig),
      royaltyRate: box.royaltyRate,
      updatedAt: box.updatedAt,
      version: box.version,
    });
  }

  async markDeleted(
    tx: Queryable,
    box: { boxId: string; claimId: string; ownerPlatformId: string; identityName: string },
    deletedAt: Date,
  ): Promise<void> {
    // A deletion may arrive before the creation: keep a tombstone, so the creation changes nothing.
    await boxes.bury(tx, {
      boxId: box.boxId,
      claimId: box.claimId,
      ownerPlatformId: box.ownerPlatformId,
      identityName: box.identityName,
      policy: 'OPEN',
      updatedAt: deletedAt,
      deletedAt,
    });
  }

  async find(q: Queryable, id: string): Promise<BoxView | null> {
    const row = await db(q).selectFrom('boxes').selectAll().where('boxId', '=', id).executeTakeFirst();
    return row ?? null;
  }

  async findByIdentity(q: Queryable, identityId: string): Promise<BoxView | null> {
    // A claim may have had a deleted box and a new one: the live one first, then the newest.
    const row = await db(q)
      .selectFrom('boxes')
      .selectAll()
      .where((eb) => eb.or([eb('boxId', '=', identityId), eb('claimId', '=', identityId)]))
      .orderBy((eb) => eb('deletedAt', 'is', null), 'desc')
      .orderBy('updatedAt', 'desc')
      .limit(1)
      .executeTakeFirst();
    return row ?? null;
  }
}
