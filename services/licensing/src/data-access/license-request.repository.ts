import { selectPage, type Queryable } from '@svc/storage';
import type { LicenseRequest, LicenseTerms, RequestStatus, Tier } from '../domain/license';
import type { LicenseRequestStore, Page } from '../domain/ports';

import { fromJson, isoOrNull, toDate, toDateOrNull, toNumber, toNumberOrNull } from '@svc/storage';

interface RequestRow {
  id: string;
  box_id: string;
  claim_id: string;
  identity_name: string;
  box_owner_platform_id: string;
  licensee_platform_id: string;
  licensee_platform_name: string;
  tier: string;
  use_case: string;
  estimated_users: unknown;
  message: string | null;
  term_months: unknown;
  auto_renew: boolean;
  monthly_fee_cents: unknown;
  royalty_rate: unknown;
  currency: string;
  terms: unknown;
  status: string;
  submitted_at: unknown;
  decided_at: unknown;
  reason: string | null;
  license_id: string | null;
  upgrade_of_license_id: string | null;
}

function toRequest(row: RequestRow): LicenseRequest {
  return {
    id: row.id,
    boxId: row.box_id,
    claimId: row.claim_id,
    identityName: row.identity_name,
    boxOwnerPlatformId: row.box_owner_platform_id,
    licenseePlatformId: row.licensee_platform_id,
    licenseePlatformName: row.licensee_platform_name,
    tier: row.tier as Tier,
    useCase: row.use_case,
    estimatedUsers: toNumberOrNull(row.estimated_users),
    message: row.message,
    termMonths: toNumber(row.term_months),
    autoRenew: row.auto_renew,
    monthlyFeeCents: row.monthly_fee_cents === null ? null : BigInt(String(row.monthly_fee_cents)),
    royaltyRate: toNumber(row.royalty_rate),
    currency: row.currency,
    terms: fromJson<LicenseTerms>(row.terms),
    status: row.status as RequestStatus,
    submittedAt: toDate(row.submitted_at),
    decidedAt: toDateOrNull(row.decided_at),
    reason: row.reason,
    licenseId: row.license_id,
    upgradeOfLicenseId: row.upgrade_of_license_id ?? null,
  };
}

/** License requests. */
export class LicenseRequestRepository implements LicenseRequestStore {
  async insert(tx: Queryable, r: LicenseRequest): Promise<void> {
    await tx.query(
      `INSERT INTO license_requests (id, box_id, claim_id, identity_name, box_owner_platform_id, licensee_platform_id,
         licensee_platform_name, tier, use_case, estimated_users, message, term_months, auto_renew, monthly_fee_cents,
         royalty_rate, currency, terms, status, submitted_at, decided_at, reason, license_id, upgrade_of_license_id)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17::jsonb, $18, $19, $20, $21, $22, $23)`,
      [
        r.id,
        r.boxId,
        r.claimId,
        r.identityName,
        r.boxOwnerPlatformId,
        r.licenseePlatformId,
        r.licenseePlatformName,
        r.tier,
        r.useCase,
        r.estimatedUsers,
        r.message,
        r.termMonths,
        r.autoRenew,
        r.monthlyFeeCents?.toString() ?? null,
        r.royaltyRate,
        r.currency,
        JSON.stringify(r.terms),
        r.status,
        r.submittedAt.toISOString(),
        isoOrNull(r.decidedAt),
        r.reason,
        r.licenseId,
        r.upgradeOfLicenseId,
      ],
    );
  }

  async update(tx: Queryable, r: LicenseRequest): Promise<void> {
    await tx.query(
      `UPDATE license_requests SET status = $2, decided_at = $3, reason = $4, license_id = $5,
         monthly_fee_cents = $6 WHERE id = $1`,
      [r.id, r.status, isoOrNull(r.decidedAt), r.reason, r.licenseId, r.monthlyFeeCents?.toString() ?? null],
    );
  }

  async find(q: Queryable, id: string, options: { lock?: boolean } = {}): Promise<LicenseRequest | null> {
    const { rows } = await q.query<RequestRow>(
      `SELECT * FROM license_requests WHERE id = $1 ${options.lock === true ? 'FOR UPDATE' : ''}`,
      [id],
    );
    const row = rows[0];
    return row === undefined ? null : toRequest(row);
  }

  async listForBox(
    q: Queryable,
    filter: Page & { boxId: string; status?: RequestStatus | undefined },
  ): Promise<{ items: LicenseRequest[]; total: number }> {
    const { rows, total } = await selectPage<RequestRow>(q, {
      select: '*',
      from: 'license_requests',
      equals: [
        ['box_id', filter.boxId],
        ['status', filter.status],
      ],
      orderBy: 'submitted_at DESC, seq DESC',
      limit: filter.limit,
      offset: filter.offset,
    });
    return { items: rows.map(toRequest), total };
  }
}
