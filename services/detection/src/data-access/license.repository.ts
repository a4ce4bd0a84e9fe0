import type { Queryable } from '@svc/storage';
import type { LicenseStore } from '../domain/ports';

/** The licenses detection keeps from licensing.license.* (one row per license, latest state). */
export class LicenseRepository implements LicenseStore {
  async activeLicenseTiers(db: Queryable, platformId: string, boxId: string, now: Date): Promise<string[]> {
    const result = await db.query<{ tier: string }>(
      `SELECT DISTINCT tier FROM licenses
       WHERE licensee_platform_id = $1 AND box_id = $2 AND status = 'active' AND expires_at > $3`,
      [platformId, boxId, now.toISOString()],
      { name: 'detection_active_license_tiers' },
    );
    return result.rows.map((row) => row.tier);
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
    await tx.query(
      `INSERT INTO licenses (license_id, box_id, licensee_platform_id, status, expires_at, updated_at, tier, version)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
       ON CONFLICT (license_id) DO UPDATE SET status = EXCLUDED.status, expires_at = EXCLUDED.expires_at,
         tier = EXCLUDED.tier, updated_at = EXCLUDED.updated_at, version = EXCLUDED.version
       WHERE (licenses.version, licenses.updated_at) <= (EXCLUDED.version, EXCLUDED.updated_at)`,
      [
        license.licenseId,
        license.boxId,
        license.licenseePlatformId,
        license.status,
        license.expiresAt.toISOString(),
        license.updatedAt.toISOString(),
        license.tier,
        license.version,
      ],
    );
  }
}
