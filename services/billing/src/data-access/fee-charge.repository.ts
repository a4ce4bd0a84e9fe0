import { kyselyOn, type Queryable } from '@svc/storage';
import type { FeeCharge, FeeChargeStore } from '../domain/ports';
import type { DB } from './db.generated';

const db = (q: Queryable) => kyselyOn<DB>(q);

/** The current fee of each license and period (SQL lives here). */
export class FeeChargeRepository implements FeeChargeStore {
  async ofLicense(q: Queryable, licenseId: string): Promise<FeeCharge[]> {
    const rows = await db(q)
      .selectFrom('feeCharges')
      // Cents are read as text: exact past 2^53, where an int8 read as a number is not.
      .select((eb) => [
        'licenseId',
        'period',
        'version',
        eb.cast<string>('amountCents', 'text').as('amountCents'),
        eb.cast<string>('monthlyFeeCents', 'text').as('monthlyFeeCents'),
        'updatedAt',
      ])
      .where('licenseId', '=', licenseId)
      .orderBy('period')
      .execute();
    return rows.map((row) => ({
      ...row,
      amountCents: BigInt(row.amountCents),
      monthlyFeeCents: BigInt(row.monthlyFeeCents),
    }));
  }

  async save(tx: Queryable, c: FeeCharge): Promise<void> {
    await db(tx)
      .insertInto('feeCharges')
      .values({
        licenseId: c.licenseId,
        period: c.period,
        version: c.version,
        amountCents: c.amountCents.toString(),
        monthlyFeeCents: c.monthlyFeeCents.toString(),
        updatedAt: c.updatedAt,
      })
      // The fee a period was first billed at stays (monthlyFeeCents is not updated).
      .onConflict((conflict) =>
        conflict.columns(['licenseId', 'period']).doUpdateSet((eb) => ({
          version: eb.ref('excluded.version'),
          amountCents: eb.ref('excluded.amountCents'),
          updatedAt: eb.ref('excluded.updatedAt'),
        })),
      )
      .execute();
  }
}
