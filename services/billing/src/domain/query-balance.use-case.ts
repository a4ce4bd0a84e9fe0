import type { BillingContext, Caller, CurrencyTotals, PendingPayout } from './ports';

/** The currency shown when the caller has no ledger entries yet. */
export const DEFAULT_CURRENCY = 'USD';

export interface Balance {
  currency: string;
  /** Fees and royalties the caller owes as a licensee (no payment is settled yet: all of them). */
  payableCents: bigint;
  /** Fees and royalties owed to the caller as a box owner. */
  receivableCents: bigint;
  /** The license fees within payableCents and receivableCents. */
  payableFeesCents: bigint;
  receivableFeesCents: bigint;
  pendingPayouts: PendingPayout[];
  /** Every currency, when the caller has entries in more than one. */
  byCurrency: CurrencyTotals[];
}

/** The caller's royalty balance from the ledger. */
export async function getBalance(ctx: BillingContext, caller: Caller): Promise<Balance> {
  const [totals, pendingPayouts] = await Promise.all([
    ctx.ledger.totals(ctx.db, caller.platformId),
    ctx.ledger.pendingPayouts(ctx.db, caller.platformId),
  ]);
  const main = totals[0] ?? {
    currency: DEFAULT_CURRENCY,
    payableCents: 0n,
    receivableCents: 0n,
    payableFeesCents: 0n,
    receivableFeesCents: 0n,
  };
  return {
    currency: main.currency,
    payableCents: main.payableCents,
    receivableCents: main.receivableCents,
    payableFeesCents: main.payableFeesCents,
    receivableFeesCents: main.receivableFeesCents,
    pendingPayouts: pendingPayouts.filter((payout) => payout.currency === main.currency),
    byCurrency: totals,
  };
}
