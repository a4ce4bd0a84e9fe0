import { ProjectionTable } from '@svc/projection';
import { jsonb, kyselyOn, sql, type Queryable } from '@svc/storage';
import type { BoxStore, BoxView, LicenseFact, LicenseProjectionStore } from '../domain/ports';
import type { LicenseRecord } from '../domain/resolution-check';
import type { DB } from './db.generated';

const db = (q: Queryable) => kyselyOn<DB>(q);

// The registry's boxes (a deleted one stays deleted) and licensing's licenses, each ordered by
// the owner's version, then time (ADR 0010).
const boxes = new ProjectionTable<DB, 'boxes'>({
  table: 'boxes',
  key: 'boxId',
  version: 'version',
  at: 'updatedAt',
  tombstone: 'deletedAt',
});
const licenses = new ProjectionTable<DB, 'licenses'>({
  table: 'licenses',
  key: 'licenseId',
  version: 'version',
  at: 'updatedAt',
});

/** The box projection (registry.box.* events). */
export class BoxRepository implements BoxStore {
  async upsert(tx: Queryable, box: BoxView): Promise<void> {
    await boxes.upsertIfNewer(tx, {
      boxId: box.boxId,
      claimId: box.claimId,
      ownerPlatformId: box.ownerPlatformId,
      identityName: box.identityName,
      policy: box.policy,
      enforcement: box.enforcement,
      policyConfig: jsonb(box.policyConfig),
      updatedAt: box.updatedAt,
      version: box.version,
    });
  }

  async markDeleted(
    tx: Queryable,
    box: { boxId: string; claimId: string; ownerPlatformId: string; identityName: string },
    deletedAt: Date,
  ): Promise<void> {
    // A deletion may arrive before the creation (or without it): keep a tombstone either way.
    await boxes.bury(tx, {
      boxId: box.boxId,
      claimId: box.claimId,
      ownerPlatformId: box.ownerPlatformId,
      identityName: box.identityName,
      policy: 'OPEN',
      enforcement: 'MODERATE',
      policyConfig: jsonb({}),
      updatedAt: deletedAt,
      deletedAt,
    });
  }

  async find(q: Queryable, boxId: string): Promise<BoxView | null> {
    const row = await db(q).selectFrom('boxes').selectAll().where('boxId', '=', boxId).executeTakeFirst();
    return row ?? null;
  }

  async findMany(q: Queryable, boxIds: string[]): Promise<Map<string, BoxView>> {
    const found = new Map<string, BoxView>();
    if (boxIds.length === 0) return found;
    const rows = await db(q)
      .selectFrom('boxes')
      .selectAll()
      .where((eb) => eb('boxId', '=', eb.fn.any(eb.val(boxIds))))
      .execute();
    for (const row of rows) found.set(row.boxId, row);
    return found;
  }
}

/** The license projection (licensing.license.* events). */
export class LicenseProjectionRepository implements LicenseProjectionStore {
  async apply(tx: Queryable, fact: LicenseFact): Promise<boolean> {
    return licenses.upsertIfNewer(
      tx,
      {
        licenseId: fact.licenseId,
        boxId: fact.boxId,
        licenseePlatformId: fact.licenseePlatformId,
        status: fact.status,
        tier: fact.tier,
        updatedAt: fact.updatedAt,
        version: fact.version,
      },
      { update: ['status', 'tier', 'updatedAt', 'version'] },
    );
  }

  async activeTiers(q: Queryable, platformId: string, boxId: string): Promise<string[]> {
    // A license projected before tiers were carried has no tier: '' covers non-commercial use only.
    const rows = await db(q)
      .selectFrom('licenses')
      .select((eb) => eb.fn.coalesce('tier', sql.lit('')).as('tier'))
      .where('licenseePlatformId', '=', platformId)
      .where('boxId', '=', boxId)
      .where('status', '=', 'active')
      .execute();
    return rows.map((row) => row.tier);
  }

  async find(
    q: Queryable,
    licenseId: string,
    options: { lock?: boolean } = {},
  ): Promise<LicenseRecord | null> {
    const row = await db(q)
      .selectFrom('licenses')
      .select(['licenseId', 'boxId', 'licenseePlatformId', 'status', 'tier'])
      .where('licenseId', '=', licenseId)
      .$if(options.lock === true, (query) => query.forUpdate())
      .executeTakeFirst();
    return row ?? null;
  }
}
