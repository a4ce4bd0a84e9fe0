import { jsonb, kyselyOn, sql, type Queryable } from '@svc/storage';
import type { BoxView } from '../domain/box';
import type { BoxProjectionStore } from '../domain/ports';
import type { DB } from './db.generated';

const db = (q: Queryable) => kyselyOn<DB>(q);

/** The box projection (registry.box.* events). */
export class BoxProjectionRepository implements BoxProjectionStore {
  async upsert(tx: Queryable, box: BoxView): Promise<void> {
    await db(tx)
      .insertInto('boxes')
      .values({
        boxId: box.boxId,
        claimId: box.claimId,
        ownerPlatformId: box.ownerPlatformId,
        identityName: box.identityName,
        policy: box.policy,
        policyConfig: jsonb(box.policyConfig),
        royaltyRate: box.royaltyRate,
        updatedAt: box.updatedAt,
        version: box.version,
      })
      .onConflict((conflict) =>
        conflict
          .column('boxId')
          .doUpdateSet((eb) => ({
            claimId: eb.ref('excluded.claimId'),
            ownerPlatformId: eb.ref('excluded.ownerPlatformId'),
            identityName: eb.ref('excluded.identityName'),
            policy: eb.ref('excluded.policy'),
            policyConfig: eb.ref('excluded.policyConfig'),
            royaltyRate: eb.ref('excluded.royaltyRate'),
            updatedAt: eb.ref('excluded.updatedAt'),
            version: eb.ref('excluded.version'),
          }))
          // A tombstone stays; an older event (by version, then time: ADR 0010) changes nothing.
          .where('boxes.deletedAt', 'is', null)
          .where(
            sql<boolean>`(${sql.ref('boxes.version')}, ${sql.ref('boxes.updatedAt')})
              <= (${sql.ref('excluded.version')}, ${sql.ref('excluded.updatedAt')})`,
          ),
      )
      .execute();
  }

  async markDeleted(
    tx: Queryable,
    box: { boxId: string; claimId: string; ownerPlatformId: string; identityName: string },
    deletedAt: Date,
  ): Promise<void> {
    // A deletion may arrive before the creation: keep a tombstone, so the creation changes nothing.
    await db(tx)
      .insertInto('boxes')
      .values({
        boxId: box.boxId,
        claimId: box.claimId,
        ownerPlatformId: box.ownerPlatformId,
        identityName: box.identityName,
        policy: 'OPEN',
        updatedAt: deletedAt,
        deletedAt,
      })
      .onConflict((conflict) =>
        conflict
          .column('boxId')
          .doUpdateSet((eb) => ({ deletedAt: eb.ref('excluded.deletedAt') }))
          .where('boxes.deletedAt', 'is', null),
      )
      .execute();
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
