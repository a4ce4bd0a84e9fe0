import { ProjectionTable } from '@svc/projection';
import { executeNamed, kyselyOn, sql, type Queryable } from '@svc/storage';
import type { LicenseStore } from '../domain/ports';
import type { DB } from './db.generated';

const db = (q: Queryable) => kyselyOn<DB>(q);

const licenses = new ProjectionTable<DB, 'licenses'>({
  table: 'licenses',
  key: 'licenseId',
  version: 'version',
  at: 'updatedAt',
});

/** The licenses detection keeps from licensing.license.* (one row per license, latest state). */
export class LicenseRepository implements LicenseStore {
  async activeLicenseTiers(q: Queryable, platformId: string, boxId: string, now: Date): Promise<string[]> {
    const { rows } = await executeNamed(
      q,
      'detection_active_license_tiers',
      db(q)
        .selectFrom('licenses')
        .select('tier')
        .distinct()
        .where('licenseePlatformId', '=', platformId)
        .where('boxId', '=', boxId)
        .where('status', '=', sql.lit('active'))
        .where('expiresAt', '>', now),
    );
    return rows.map((row) => row.tier);
  }

  async activeLicenseTiersByBox(
    q: Queryable,
    platformId: string,
    boxIds: readonly string[],
    now: Date,
  ): Promise<Map<string, string[]>> {
    const byBox = new Map<string, string[]>();
    if (boxIds.length === 0) return byBox;
    const { rows } = await executeNamed(
      q,
      'detection_active_license_tiers_by_box',
      db(q)
        .selectFrom('licenses')
        .select(['boxId', 'tier'])
        .distinct()
        .where('licenseePlatformId', '=', platformId)
        // One array parameter: a named statement must keep its parameter count.
        .where((eb) => eb('boxId', '=', eb.fn.any(eb.val([...boxIds]))))
        .where('status', '=', sql.lit('active'))
        .where('expiresAt', '>', now),
    );
    for (const row of rows) byBox.set(row.boxId, [...(byBox.get(row.boxId) ?? []), row.tier]);
    return byBox;
  }

  async upsert(
    tx: Queryable,
    license: {
      licenseId: string;
      boxId: string;
      licenseePlatformId: string;
      tier: string;
      status: string;
      expiresAt: Date;
      updatedAt: Date;
      version: number;
    },
  ): Promise<void> {
    // A later state of the license is never overwritten (ADR 0010).
    await licenses.upsertIfNewer(
      tx,
      {
        licenseId: license.licenseId,
        boxId: license.boxId,
        licenseePlatformId: license.licenseePlatformId,
        status: license.status,
        expiresAt: license.expiresAt,
        updatedAt: license.updatedAt,
        tier: license.tier,
        version: license.version,
      },
      { update: ['status', 'expiresAt', 'tier', 'updatedAt', 'version'] },
    );
  }
}
