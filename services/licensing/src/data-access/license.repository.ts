import { jsonb, kyselyOn, pageOf, sql, type Queryable } from '@svc/storage';
import type { License, LicenseStatus, LogEntryRef, Tier } from '../domain/license';
import type { LicenseStore, Page } from '../domain/ports';
import type { DB } from './db.generated';

const db = (q: Queryable) => kyselyOn<DB>(q);

function licenses(q: Queryable) {
  return db(q).selectFrom('licenses').selectAll();
}

type LicenseRow = Awaited<ReturnType<ReturnType<typeof licenses>['executeTakeFirstOrThrow']>>;

// The one mapping left: the fee is cents as a bigint in the domain, an int8 (a number) when read.
function toLicense({
  seq: _seq,
  monthlyFeeCents,
  logEntryIndex,
  logEntryLeafHash,
  ...row
}: LicenseRow): License {
  const logEntry =
    logEntryIndex === null || logEntryLeafHash === null
      ? null
      : { index: Number(logEntryIndex), leafHash: logEntryLeafHash };
  return { ...row, monthlyFeeCents: BigInt(monthlyFeeCents), logEntry };
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
    await sql`
      UPDATE licenses AS l
         SET log_entry_index = u.idx, log_entry_leaf_hash = u.leaf_hash
        FROM unnest(${ids}::text[], ${at.map((e) => e.index)}::bigint[], ${at.map((e) => e.leafHash)}::text[])
             AS u(id, idx, leaf_hash)
       WHERE l.id = u.id AND (l.log_entry_index IS NULL OR l.log_entry_index < u.idx)`.execute(db(tx));
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
      .forUpdate('l')
      .skipLocked()
      .execute();
    return rows.map(toLicense);
  }
}
