import { centsText } from '@svc/money';
import { ProjectionTable } from '@svc/projection';
import { kyselyOn, preparedStatement, type Kysely, type Queryable } from '@svc/storage';
import type { LicenseProjection } from '../domain/license';
import type { LicenseStore } from '../domain/ports';
import type { DB } from './db.generated';

const db = (q: Queryable) => kyselyOn<DB>(q);

// The fee is read as text: exact past 2^53, where an int8 read as a number is not (ADR 0039).
const licenseRow = (db: Kysely<DB>, id: string) =>
  db
    .selectFrom('licenses')
    .selectAll()
    .select((eb) => eb.cast<string>('monthlyFeeCents', 'text').as('monthlyFeeText'))
    .where('id', '=', id);

// Licensing's licenses: an older event (by version, then time: ADR 0010) changes nothing.
const licenses = new ProjectionTable<DB, 'licenses'>({
  table: 'licenses',
  key: 'id',
  version: 'version',
  at: 'lastEventAt',
});

// Read (and locked) once per usage report: built and compiled once, run with each id.
const findLicense = preparedStatement('billing_find_license', (db: Kysely<DB>, input: { id: string }) =>
  licenseRow(db, input.id),
);
const lockLicense = preparedStatement('billing_lock_license', (db: Kysely<DB>, input: { id: string }) =>
  licenseRow(db, input.id).forUpdate(),
);

/** The license projection (SQL lives here). */
export class LicenseRepository implements LicenseStore {
  async find(q: Queryable, id: string, options: { lock?: boolean } = {}): Promise<LicenseProjection | null> {
    const { rows } = await (options.lock === true ? lockLicense : findLicense)(q, { id });
    const row = rows[0];
    if (row === undefined) return null;
    const { monthlyFeeCents: _asNumber, monthlyFeeText, ...license } = row;
    return { ...license, monthlyFeeCents: BigInt(monthlyFeeText) };
  }

  async save(tx: Queryable, l: LicenseProjection): Promise<void> {
    await licenses.upsertIfNewer(tx, {
      id: l.id,
      boxId: l.boxId,
      licenseePlatformId: l.licenseePlatformId,
      licenseePlatformName: l.licenseePlatformName,
      boxOwnerPlatformId: l.boxOwnerPlatformId,
      royaltyRate: l.royaltyRate,
      currency: l.currency,
      status: l.status,
      validFrom: l.validFrom,
      expiresAt: l.expiresAt,
      endedAt: l.endedAt,
      lastEventAt: l.lastEventAt,
      monthlyFeeCents: centsText(l.monthlyFeeCents),
      version: l.version,
    });
  }

  async activeIds(q: Queryable, licenseePlatformId?: string): Promise<string[]> {
    const rows = await db(q)
      .selectFrom('licenses')
      .select('id')
      .where('status', '=', 'active')
      .$if(licenseePlatformId !== undefined, (query) =>
        query.where('licenseePlatformId', '=', licenseePlatformId ?? ''),
      )
      .orderBy('id')
      .execute();
    return rows.map((row) => row.id);
  }
}
