import type { Queryable } from '@svc/storage';
import type { FeeCharge, FeeChargeStore } from '../domain/ports';

interface ChargeRow {
  license_id: string;
  period: string;
  version: number;
  amount_cents: string;
  monthly_fee_cents: string;
  updated_at: Date | string;
}

/** The current fee of each license and period (SQL lives here). */
export class FeeChargeRepository implements FeeChargeStore {
  async ofLicense(q: Queryable, licenseId: string): Promise<FeeCharge[]> {
    const { rows } = await q.query<ChargeRow>(
      `SELECT license_id, period, version, amount_cents::text AS amount_cents,
         monthly_fee_cents::text AS monthly_fee_cents, updated_at
       FROM fee_charges WHERE license_id = $1 ORDER BY period`,
      [licenseId],
    );
    return rows.map((row) => ({
      licenseId: row.license_id,
      period: row.period,
      version: Number(row.version),
      amountCents: BigInt(row.amount_cents),
      monthlyFeeCents: BigInt(row.monthly_fee_cents),
      updatedAt: new Date(row.updated_at),
    }));
  }

  async save(tx: Queryable, c: FeeCharge): Promise<void> {
    await tx.query(
      `INSERT INTO fee_charges (license_id, period, version, amount_cents, monthly_fee_cents, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6)
       ON CONFLICT (license_id, period) DO UPDATE SET version = EXCLUDED.version,
         amount_cents = EXCLUDED.amount_cents, updated_at = EXCLUDED.updated_at`,
      [
        c.licenseId,
        c.period,
        c.version,
        c.amountCents.toString(),
        c.monthlyFeeCents.toString(),
        c.updatedAt.toISOString(),
      ],
    );
  }
}
