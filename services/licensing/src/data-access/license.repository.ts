import { selectPage, type Queryable } from '@svc/storage';
import type { License, LicenseStatus, LicenseTerms, Tier } from '../domain/license';
import type { LicenseStore, Page } from '../domain/ports';

import { fromJson, isoOrNull, toDate, toDateOrNull, toNumber } from '@svc/storage';

interface LicenseRow {
  id: string;
  request_id: string;
  box_id: string;
  claim_id: string;
  identity_name: string;
  box_owner_platform_id: string;
  licensee_platform_id: string;
  licensee_platform_name: string;
  tier: string;
  status: string;
  monthly_fee_cents: unknown;
  royalty_rate: unknown;
  currency: string;
  terms: unknown;
  term_months: unknown;
  auto_renew: boolean;
  valid_from: unknown;
  expires_at: unknown;
  cancel_at: unknown;
  cancel_reason: string | null;
  ended_at: unknown;
  created_at: unknown;
}

function toLicense(row: LicenseRow): License {
  return {
    id: row.id,
    requestId: row.request_id,
    boxId: row.box_id,
    claimId: row.claim_id,
    identityName: row.identity_name,
    boxOwnerPlatformId: row.box_owner_platform_id,
    licenseePlatformId: row.licensee_platform_id,
    licenseePlatformName: row.licensee_platform_name,
    tier: row.tier as Tier,
    status: row.status as LicenseStatus,
    monthlyFeeCents: BigInt(String(row.monthly_fee_cents)),
    royaltyRate: toNumber(row.royalty_rate),
    currency: row.currency,
    terms: fromJson<LicenseTerms>(row.terms),
    termMonths: toNumber(row.term_months),
    autoRenew: row.auto_renew,
    validFrom: toDate(row.valid_from),
    expiresAt: toDate(row.expires_at),
    cancelAt: toDateOrNull(row.cancel_at),
    cancelReason: row.cancel_reason,
    endedAt: toDateOrNull(row.ended_at),
    createdAt: toDate(row.created_at),
  };
}

/** Licenses. */
export class LicenseRepository implements LicenseStore {
  async insert(tx: Queryable, l: License): Promise<void> {
    await tx.query(
      `INSERT INTO licenses (id, request_id, box_id, claim_id, identity_name, box_owner_platform_id, licensee_platform_id,
         licensee_platform_name, tier, status, monthly_fee_cents, royalty_rate, currency, terms, term_months, auto_renew,
         valid_from, expires_at, cancel_at, cancel_reason, ended_at, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14::jsonb, $15, $16, $17, $18, $19, $20, $21, $22)`,
      [
        l.id,
        l.requestId,
        l.boxId,
        l.claimId,
        l.identityName,
        l.boxOwnerPlatformId,
        l.licenseePlatformId,
        l.licenseePlatformName,
        l.tier,
        l.status,
        l.monthlyFeeCents.toString(),
        l.royaltyRate,
        l.currency,
        JSON.stringify(l.terms),
        l.termMonths,
        l.autoRenew,
        l.validFrom.toISOString(),
        l.expiresAt.toISOString(),
        isoOrNull(l.cancelAt),
        l.cancelReason,
        isoOrNull(l.endedAt),
        l.createdAt.toISOString(),
      ],
    );
  }

  async update(tx: Queryable, l: License): Promise<void> {
    await tx.query(
      `UPDATE licenses SET tier = $2, status = $3, monthly_fee_cents = $4, royalty_rate = $5, currency = $6,
         expires_at = $7, cancel_at = $8, cancel_reason = $9, ended_at = $10, auto_renew = $11 WHERE id = $1`,
      [
        l.id,
        l.tier,
        l.status,
        l.monthlyFeeCents.toString(),
        l.royaltyRate,
        l.currency,
        l.expiresAt.toISOString(),
        isoOrNull(l.cancelAt),
        l.cancelReason,
        isoOrNull(l.endedAt),
        l.autoRenew,
      ],
    );
  }

  async find(q: Queryable, id: string, options: { lock?: boolean } = {}): Promise<License | null> {
    const { rows } = await q.query<LicenseRow>(
      `SELECT * FROM licenses WHERE id = $1 ${options.lock === true ? 'FOR UPDATE' : ''}`,
      [id],
    );
    const row = rows[0];
    return row === undefined ? null : toLicense(row);
  }

  async list(
    q: Queryable,
    filter: Page & {
      licenseePlatformId: string;
      status?: LicenseStatus | undefined;
      boxId?: string | undefined;
      tier?: Tier | undefined;
    },
  ): Promise<{ items: License[]; total: number }> {
    const { rows, total } = await selectPage<LicenseRow>(q, {
      select: '*',
      from: 'licenses',
      equals: [
        ['licensee_platform_id', filter.licenseePlatformId],
        ['status', filter.status],
        ['box_id', filter.boxId],
        ['tier', filter.tier],
      ],
      orderBy: 'created_at DESC, seq DESC',
      limit: filter.limit,
      offset: filter.offset,
    });
    return { items: rows.map(toLicense), total };
  }

  async findActiveHolding(
    q: Queryable,
    licenseePlatformId: string,
    boxId: string,
    tier: Tier,
  ): Promise<License | null> {
    const { rows } = await q.query<LicenseRow>(
      `SELECT * FROM licenses WHERE licensee_platform_id = $1 AND box_id = $2 AND tier = $3 AND status = 'active'
       ORDER BY created_at, seq LIMIT 1`,
      [licenseePlatformId, boxId, tier],
    );
    const row = rows[0];
    return row === undefined ? null : toLicense(row);
  }

  async lockDue(tx: Queryable, now: Date, limit: number, licenseePlatformId?: string): Promise<License[]> {
    const { rows } = await tx.query<LicenseRow>(
      `SELECT l.* FROM licenses l
       LEFT JOIN sandbox_clocks c ON c.platform_id = l.licensee_platform_id
       CROSS JOIN LATERAL (
         SELECT $1::timestamptz + COALESCE(c.offset_ms, 0) * interval '1 millisecond' AS now
       ) t
       WHERE l.status = 'active' AND (l.expires_at <= t.now OR (l.cancel_at IS NOT NULL AND l.cancel_at <= t.now))
         AND ($3::text IS NULL OR l.licensee_platform_id = $3)
       ORDER BY l.expires_at, l.id LIMIT $2 FOR UPDATE OF l SKIP LOCKED`,
      [now.toISOString(), limit, licenseePlatformId ?? null],
    );
    return rows.map(toLicense);
  }
}
