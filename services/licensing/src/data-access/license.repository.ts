import { jsonb, kyselyOn, pageOf, sql, type Queryable, type Selectable } from '@svc/storage';
import type { License, LicenseStatus, LogEntryRef, Tier } from '../domain/license';
import type { LicenseStore, Page } from '../domain/ports';
import type { DB } from './db.generated';

const db = (q: Queryable) => kyselyOn<DB>(q);

/** Licenses with their newest logged decision (scalar subqueries: FOR UPDATE locks licenses alone). */
function licenses(q: Queryable) {
  return db(q)
    .selectFrom('licenses')
    .selectAll('licenses')
    .select((eb) => [
      eb.cast<string>('licenses.monthlyFeeCents', 'text').as('monthlyFeeText'),
      eb
        .selectFrom('licenseLogEntries as e')
        .select('e.logEntryIndex')
        .whereRef('e.licenseId', '=', 'licenses.id')
        .as('logEntryIndex'),
      eb
        .selectFrom('licenseLogEntries as e')
        .select('e.logEntryLeafHash')
        .whereRef('e.licenseId', '=', 'licenses.id')
        .as('logEntryLeafHash'),
    ]);
}

type LicenseRow = Selectable<DB['licenses']> & {
  monthlyFeeText: string;
  logEntryIndex?: number | string | null;
  logEntryLeafHash?: string | null;
};

// The one mapping left: the fee is cents as a bigint in the domain, read as text (an int8 read as a
// number is exact only below 2^53: ADR 0039).
function toLicense({
  seq: _seq,
  monthlyFeeCents: _asNumber,
  monthlyFeeText,
  logEntryIndex,
  logEntryLeafHash,
  ...row
}: LicenseRow): License {
  const logEntry =
    logEntryIndex == null || logEntryLeafHash == null
      ? null
      : { index: Number(logEntryIndex), leafHash: logEntryLeafHash };
  return { ...row, monthlyFeeCents: BigInt(monthlyFeeText), logEntry };
}

/** Licenses. */
export class LicenseRepository implements LicenseStore {
  async insert(tx: Queryable, l: License): Promise<void> {
    await db(tx)
      .insertInto('licenses')
      .values({
        id: l.id,
        requestId: l.requestId,
        boxId: l.boxId,
        claimId: l.claimId,
        identityName: l.identityName,
        boxOwnerPlatformId: l.boxOwnerPlatformId,
        licenseePlatformId: l.licenseePlatformId,
        licenseePlatformName: l.licenseePlatformName,
        tier: l.tier,
        status: l.status,
        monthlyFeeCents: l.monthlyFeeCents.toString(),
        royaltyRate: l.royaltyRate,
        currency: l.currency,
        terms: jsonb(l.terms),
        termMonths: l.termMonths,
        autoRenew: l.autoRenew,
        validFrom: l.validFrom,
        expiresAt: l.expiresAt,
        cancelAt: l.cancelAt,
        cancelReason: l.cancelReason,
        endedAt: l.endedAt,
        createdAt: l.createdAt,
      })
      .execute();
  }

  async update(tx: Queryable, l: License): Promise<void> {
    await db(tx)
      .updateTable('licenses')
      .set({
        tier: l.tier,
        status: l.status,
        monthlyFeeCents: l.monthlyFeeCents.toString(),
        royaltyRate: l.royaltyRate,
        currency: l.currency,
        expiresAt: l.expiresAt,
        cancelAt: l.cancelAt,
        cancelReason: l.cancelReason,
        endedAt: l.endedAt,
        autoRenew: l.autoRenew,
      })
      .where('id', '=', l.id)
      .execute();
  }

  /** Records where each license's newest logged decision sits (an older one never replaces it). */
  async recordLogEntries(tx: Queryable, entries: ReadonlyMap<string, LogEntryRef>): Promise<void> {
    const ids = [...entries.keys()];
    const at = [...entries.values()];
    // Its own table: a license row is never locked by the log, so a due license is never skipped.
    await sql`
      INSERT INTO license_log_entries (license_id, log_entry_index, log_entry_leaf_hash)
      SELECT * FROM unnest(${ids}::text[], ${at.map((e) => e.index)}::bigint[], ${at.map((e) => e.leafHash)}::text[])
      ON CONFLICT (license_id) DO UPDATE
         SET log_entry_index = EXCLUDED.log_entry_index, log_entry_leaf_hash = EXCLUDED.log_entry_leaf_hash
       WHERE license_log_entries.log_entry_index < EXCLUDED.log_entry_index`.execute(db(tx));
  }

  async find(q: Queryable, id: string, options: { lock?: boolean } = {}): Promise<License | null> {
    const row = await licenses(q)
      .where('id', '=', id)
      .$if(options.lock === true, (query) => query.forUpdate())
      .executeTakeFirst();
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
    let matching = licenses(q).where('licenseePlatformId', '=', filter.licenseePlatformId);
    if (filter.status !== undefined) matching = matching.where('status', '=', filter.status);
    if (filter.boxId !== undefined) matching = matching.where('boxId', '=', filter.boxId);
    if (filter.tier !== undefined) matching = matching.where('tier', '=', filter.tier);
    const { rows, total } = await pageOf(
      matching.orderBy('createdAt', 'desc').orderBy('seq', 'desc'),
      filter,
    );
    return { items: rows.map(toLicense), total };
  }

  async findActiveHolding(
    q: Queryable,
    licenseePlatformId: string,
    boxId: string,
    tier: Tier,
  ): Promise<License | null> {
    const row = await licenses(q)
      .where('licenseePlatformId', '=', licenseePlatformId)
      .where('boxId', '=', boxId)
      .where('tier', '=', tier)
      .where('status', '=', 'active')
      .orderBy('createdAt')
      .orderBy('seq')
      .limit(1)
      .executeTakeFirst();
    return row === undefined ? null : toLicense(row);
  }

  async lockDue(tx: Queryable, now: Date, limit: number, licenseePlatformId?: string): Promise<License[]> {
    const rows = await db(tx)
      .selectFrom('licenses as l')
      .leftJoin('sandboxClocks as c', 'c.platformId', 'l.licenseePlatformId')
      // The licensee's clock: the service's now plus the licensee's sandbox offset.
      .crossJoinLateral(
        sql<{ now: Date }>`(SELECT ${now.toISOString()}::timestamptz
          + COALESCE(${sql.ref('c.offsetMs')}, 0) * interval '1 millisecond' AS now)`.as('t'),
      )
      .selectAll('l')
      .select((eb) => eb.cast<string>('l.monthlyFeeCents', 'text').as('monthlyFeeText'))
      .where('l.status', '=', 'active')
      .where((eb) =>
        eb.or([
          eb('l.expiresAt', '<=', eb.ref('t.now')),
          eb.and([eb('l.cancelAt', 'is not', null), eb('l.cancelAt', '<=', eb.ref('t.now'))]),
        ]),
      )
      .$if(licenseePlatformId !== undefined, (query) =>
        query.where('l.licenseePlatformId', '=', licenseePlatformId ?? ''),
      )
      .orderBy('l.expiresAt')
      .orderBy('l.id')
      .limit(limit)
      // NO KEY UPDATE: a row that another transaction only references (a credential or a log entry
      // inserted for it holds KEY SHARE) is not skipped; it changes no key, as FOR UPDATE would claim.
      .forNoKeyUpdate('l')
      .skipLocked()
      .execute();
    return rows.map(toLicense);
  }
}
