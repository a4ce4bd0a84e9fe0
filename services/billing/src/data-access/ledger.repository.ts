import type { Queryable } from '@svc/storage';
import type { CurrencyTotals, LedgerEntry, LedgerStore, PendingPayout } from '../domain/ports';

/** The append-only royalty ledger (SQL lives here). */
export class LedgerRepository implements LedgerStore {
  async append(tx: Queryable, e: LedgerEntry): Promise<void> {
    await tx.query(
      `INSERT INTO ledger_entries (id, kind, report_id, license_id, period, payer_platform_id,
         recipient_platform_id, amount_cents, currency, due_date, created_at, charge)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12)`,
      [
        e.id,
        e.kind,
        e.reportId,
        e.licenseId,
        e.period,
        e.payerPlatformId,
        e.recipientPlatformId,
        e.amountCents.toString(),
        e.currency,
        e.dueDate.toISOString(),
        e.createdAt.toISOString(),
        e.charge,
      ],
    );
  }

  async totals(q: Queryable, platformId: string): Promise<CurrencyTotals[]> {
    const { rows } = await q.query<{
      currency: string;
      payable: string;
      receivable: string;
      payable_fees: string;
      receivable_fees: string;
    }>(
      `SELECT currency,
         COALESCE(SUM(amount_cents) FILTER (WHERE payer_platform_id = $1), 0)::text AS payable,
         COALESCE(SUM(amount_cents) FILTER (WHERE recipient_platform_id = $1), 0)::text AS receivable,
         COALESCE(SUM(amount_cents) FILTER (WHERE payer_platform_id = $1 AND charge = 'fee'), 0)::text AS payable_fees,
         COALESCE(SUM(amount_cents) FILTER (WHERE recipient_platform_id = $1 AND charge = 'fee'), 0)::text
           AS receivable_fees
       FROM ledger_entries WHERE payer_platform_id = $1 OR recipient_platform_id = $1
       GROUP BY currency ORDER BY COUNT(*) DESC, currency`,
      [platformId],
    );
    return rows.map((row) => ({
      currency: row.currency,
      payableCents: BigInt(row.payable),
      receivableCents: BigInt(row.receivable),
      payableFeesCents: BigInt(row.payable_fees),
      receivableFeesCents: BigInt(row.receivable_fees),
    }));
  }

  async pendingPayouts(q: Queryable, payerPlatformId: string): Promise<PendingPayout[]> {
    const { rows } = await q.query<{
      charge: 'royalty' | 'fee';
      license_id: string;
      period: string;
      amount: string;
      currency: string;
      due_date: Date | string;
      recipient: string;
    }>(
      `SELECT charge, license_id, period, SUM(amount_cents)::text AS amount, currency, MAX(due_date) AS due_date,
         MAX(recipient_platform_id) AS recipient
       FROM ledger_entries WHERE payer_platform_id = $1
       GROUP BY charge, license_id, period, currency HAVING SUM(amount_cents) > 0
       ORDER BY MAX(due_date), license_id, charge`,
      [payerPlatformId],
    );
    return rows.map((row) => ({
      charge: row.charge,
      licenseId: row.license_id,
      period: row.period,
      amountCents: BigInt(row.amount),
      currency: row.currency,
      dueDate: new Date(row.due_date),
      recipient: row.recipient,
    }));
  }
}
