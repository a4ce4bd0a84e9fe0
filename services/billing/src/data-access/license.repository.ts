import type { Queryable } from '@svc/storage';
import type { LicenseProjection } from '../domain/license';
import type { LicenseStore } from '../domain/ports';

interface LicenseRow {
  id: string;
  box_id: string;
  licensee_platform_id: string;
  licensee_platform_name: string;
  box_owner_platform_id: string;
  royalty_rate: string;
  currency: string;
  monthly_fee_cents: unknown;
  status: LicenseProjection['status'];
  valid_from: Date | string;
  expires_at: Date | string;
  ended_at: Date | string | null;
  last_event_at: Date | string;
  version: string | number;
}

function licenseOf(row: LicenseRow): LicenseProjection {
  return {
    id: row.id,
    boxId: row.box_id,
    licenseePlatformId: row.licensee_platform_id,
    licenseePlatformName: row.licensee_platform_name,
    boxOwnerPlatformId: row.box_owner_platform_id,
    royaltyRate: row.royalty_rate,
    currency: row.currency,
    monthlyFeeCents: Number(row.monthly_fee_cents ?? 0),
    status: row.status,
    validFrom: new Date(row.valid_from),
    expiresAt: new Date(row.expires_at),
    endedAt: row.ended_at === null ? null : new Date(row.ended_at),
    lastEventAt: new Date(row.last_event_at),
    version: Number(row.version),
  };
}

/** The license projection (SQL lives here). */
export class LicenseRepository implements LicenseStore {
  async find(q: Queryable, id: string, options: { lock?: boolean } = {}): Promise<LicenseProjection | null> {
    const { rows } = await q.query<LicenseRow>(
      `SELECT * FROM licenses WHERE id = $1${options.lock === true ? ' FOR UPDATE' : ''}`,
      [id],
    );
    const row = rows[0];
    return row === undefined ? null : licenseOf(row);
  }

  async save(tx: Queryable, l: LicenseProjection): Promise<void> {
    await tx.query(
      `INSERT INTO licenses (id, box_id, licensee_platform_id, licensee_platform_name, box_owner_platform_id,
         royalty_rate, currency, status, valid_from, expires_at, ended_at, last_event_at, monthly_fee_cents, version)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14)
       ON CONFLICT (id) DO UPDATE SET
         box_id = EXCLUDED.box_id, licensee_platform_id = EXCLUDED.licensee_platform_id,
         licensee_platform_name = EXCLUDED.licensee_platform_name,
         box_owner_platform_id = EXCLUDED.box_owner_platform_id, royalty_rate = EXCLUDED.royalty_rate,
         currency = EXCLUDED.currency, status = EXCLUDED.status, valid_from = EXCLUDED.valid_from,
         expires_at = EXCLUDED.expires_at, ended_at = EXCLUDED.ended_at, last_event_at = EXCLUDED.last_event_at,
         monthly_fee_cents = EXCLUDED.monthly_fee_cents, version = EXCLUDED.version
       WHERE (licenses.version, licenses.last_event_at) <= (EXCLUDED.version, EXCLUDED.last_event_at)`,
      [
        l.id,
        l.boxId,
        l.licenseePlatformId,
        l.licenseePlatformName,
        l.boxOwnerPlatformId,
        l.royaltyRate,
        l.currency,
        l.status,
        l.validFrom.toISOString(),
        l.expiresAt.toISOString(),
        l.endedAt?.toISOString() ?? null,
        l.lastEventAt.toISOString(),
        l.monthlyFeeCents,
        l.version,
      ],
    );
  }

  async activeIds(q: Queryable, licenseePlatformId?: string): Promise<string[]> {
    const { rows } = await q.query<{ id: string }>(
      `SELECT id FROM licenses WHERE status = 'active' AND ($1::text IS NULL OR licensee_platform_id = $1)
       ORDER BY id`,
      [licenseePlatformId ?? null],
    );
    return rows.map((row) => row.id);
  }
}
