import { jsonb, kyselyOn, pageOf, type Queryable } from '@svc/storage';
import type { LicenseRequest, LogEntryRef, RequestStatus } from '../domain/license';
import type { LicenseRequestStore, Page } from '../domain/ports';
import type { DB } from './db.generated';

const db = (q: Queryable) => kyselyOn<DB>(q);

function requests(q: Queryable) {
  return db(q)
    .selectFrom('licenseRequests')
    .selectAll()
    .select((eb) => eb.cast<string | null>('monthlyFeeCents', 'text').as('monthlyFeeText'));
}

type RequestRow = Awaited<ReturnType<ReturnType<typeof requests>['executeTakeFirstOrThrow']>>;

// The one mapping left: the fee is cents as a bigint in the domain, read as text (an int8 read as a
// number is exact only below 2^53: ADR 0039).
function toRequest({
  seq: _seq,
  monthlyFeeCents: _asNumber,
  monthlyFeeText,
  ...row
}: RequestRow): LicenseRequest {
  return { ...row, monthlyFeeCents: monthlyFeeText === null ? null : BigInt(monthlyFeeText) };
}

/** License requests. */
export class LicenseRequestRepository implements LicenseRequestStore {
  async insert(tx: Queryable, r: LicenseRequest): Promise<void> {
    await db(tx)
      .insertInto('licenseRequests')
      .values({
        id: r.id,
        boxId: r.boxId,
        claimId: r.claimId,
        identityName: r.identityName,
        boxOwnerPlatformId: r.boxOwnerPlatformId,
        licenseePlatformId: r.licenseePlatformId,
        licenseePlatformName: r.licenseePlatformName,
        tier: r.tier,
        useCase: r.useCase,
        estimatedUsers: r.estimatedUsers,
        message: r.message,
        termMonths: r.termMonths,
        autoRenew: r.autoRenew,
        monthlyFeeCents: r.monthlyFeeCents?.toString() ?? null,
        royaltyRate: r.royaltyRate,
        currency: r.currency,
        terms: jsonb(r.terms),
        status: r.status,
        submittedAt: r.submittedAt,
        decidedAt: r.decidedAt,
        reason: r.reason,
        licenseId: r.licenseId,
        upgradeOfLicenseId: r.upgradeOfLicenseId,
      })
      .execute();
  }

  async update(tx: Queryable, r: LicenseRequest): Promise<void> {
    await db(tx)
      .updateTable('licenseRequests')
      .set({
        status: r.status,
        decidedAt: r.decidedAt,
        reason: r.reason,
        licenseId: r.licenseId,
        monthlyFeeCents: r.monthlyFeeCents?.toString() ?? null,
      })
      .where('id', '=', r.id)
      .execute();
  }

  async find(q: Queryable, id: string, options: { lock?: boolean } = {}): Promise<LicenseRequest | null> {
    const row = await requests(q)
      .where('id', '=', id)
      .$if(options.lock === true, (query) => query.forUpdate())
      .executeTakeFirst();
    return row === undefined ? null : toRequest(row);
  }

  async listForBox(
    q: Queryable,
    filter: Page & { boxId: string; status?: RequestStatus | undefined },
  ): Promise<{ items: LicenseRequest[]; total: number }> {
    let matching = requests(q).where('boxId', '=', filter.boxId);
    if (filter.status !== undefined) matching = matching.where('status', '=', filter.status);
    const { rows, total } = await pageOf(
      matching.orderBy('submittedAt', 'desc').orderBy('seq', 'desc'),
      filter,
    );
    // The granted licenses' places in the transparency log, in one read (docs/spec/contracts.md §16).
    const licenseIds = rows.flatMap((row) => (row.licenseId === null ? [] : [row.licenseId]));
    const logged = new Map<string, LogEntryRef>();
    if (licenseIds.length > 0) {
      const entries = await db(q)
        .selectFrom('licenseLogEntries')
        .select(['licenseId', 'logEntryIndex', 'logEntryLeafHash'])
        .where('licenseId', 'in', licenseIds)
        .execute();
      for (const { licenseId, logEntryIndex, logEntryLeafHash } of entries)
        logged.set(licenseId, { index: Number(logEntryIndex), leafHash: logEntryLeafHash });
    }
    return {
      items: rows.map((row) => ({
        ...toRequest(row),
        licenseLogEntry: row.licenseId === null ? null : (logged.get(row.licenseId) ?? null),
      })),
      total,
    };
  }
}
