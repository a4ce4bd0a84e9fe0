import { kyselyOn, preparedStatement, type Insertable, type Kysely, type Queryable } from '@svc/storage';
import type { CurrencyTotals, LedgerEntry, LedgerStore, PendingPayout } from '../domain/ports';
import type { DB } from './db.generated';

const db = (q: Queryable) => kyselyOn<DB>(q);

// The table's own insert types (generated): every column but the sequence.
type EntryRow = Required<Omit<Insertable<DB['ledgerEntries']>, 'seq'>>;

// Appended once per usage report: built and compiled once, run with each entry's values.
const appendEntry = preparedStatement('billing_append_ledger_entry', (db: Kysely<DB>, input: EntryRow) =>
  db.insertInto('ledgerEntries').values({
    id: input.id,
    kind: input.kind,
    reportId: input.reportId,
    licenseId: input.licenseId,
    period: input.period,
    payerPlatformId: input.payerPlatformId,
    recipientPlatformId: input.recipientPlatformId,
    amountCents: input.amountCents,
    currency: input.currency,
    dueDate: input.dueDate,
    createdAt: input.createdAt,
    charge: input.charge,
  }),
);

/** The append-only royalty ledger (SQL lives here). */
export class LedgerRepository implements LedgerStore {
  async append(tx: Queryable, e: LedgerEntry): Promise<void> {
    await appendEntry(tx, {
      id: e.id,
      kind: e.kind,
      reportId: e.reportId,
      licenseId: e.licenseId,
      period: e.period,
      payerPlatformId: e.payerPlatformId,
      recipientPlatformId: e.recipientPlatformId,
      amountCents: e.amountCents.toString(),
      currency: e.currency,
      dueDate: e.dueDate,
      createdAt: e.createdAt,
      charge: e.charge,
    });
  }

  async totals(q: Queryable, platformId: string): Promise<CurrencyTotals[]> {
    // Sums are read as text: exact past 2^53, where an int8 read as a number is not.
    const rows = await db(q)
      .selectFrom('ledgerEntries')
      .select((eb) => {
        const total = (payer: 'payerPlatformId' | 'recipientPlatformId', feesOnly: boolean) =>
          eb.cast<string>(
            eb.fn.coalesce(
              eb.fn
                .sum('amountCents')
                .filterWhere((f) =>
                  f.and([f(payer, '=', platformId), ...(feesOnly ? [f('charge', '=', 'fee')] : [])]),
                ),
              eb.lit(0),
            ),
            'text',
          );
        return [
          'currency',
          total('payerPlatformId', false).as('payable'),
          total('recipientPlatformId', false).as('receivable'),
          total('payerPlatformId', true).as('payableFees'),
          total('recipientPlatformId', true).as('receivableFees'),
        ];
      })
      .where((eb) =>
        eb.or([eb('payerPlatformId', '=', platformId), eb('recipientPlatformId', '=', platformId)]),
      )
      .groupBy('currency')
      .orderBy((eb) => eb.fn.countAll(), 'desc')
      .orderBy('currency')
      .execute();
    return rows.map((row) => ({
      currency: row.currency,
      payableCents: BigInt(row.payable),
      receivableCents: BigInt(row.receivable),
      payableFeesCents: BigInt(row.payableFees),
      receivableFeesCents: BigInt(row.receivableFees),
    }));
  }

  async pendingPayouts(q: Queryable, payerPlatformId: string): Promise<PendingPayout[]> {
    const rows = await db(q)
      .selectFrom('ledgerEntries')
      .select((eb) => [
        'charge',
        'licenseId',
        'period',
        eb.cast<string>(eb.fn.sum('amountCents'), 'text').as('amount'),
        'currency',
        eb.fn.max('dueDate').as('dueDate'),
        eb.fn.max('recipientPlatformId').as('recipient'),
      ])
      .where('payerPlatformId', '=', payerPlatformId)
      .groupBy(['charge', 'licenseId', 'period', 'currency'])
      .having((eb) => eb.fn.sum('amountCents'), '>', 0)
      .orderBy((eb) => eb.fn.max('dueDate'))
      .orderBy('licenseId')
      .orderBy('charge')
      .execute();
    return rows.map(({ amount, ...row }) => ({ ...row, amountCents: BigInt(amount) }));
  }
}
