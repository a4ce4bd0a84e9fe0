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

/**
 * The caller's royalty balance from the ledger. The totals and the payouts are read from one
 * snapshot: read side by side, an entry committed between them showed in the balance but not in
 * its payouts.
 */
export async function getBalance(ctx: BillingContext, caller: Caller): Promise<Balance> {
  const [totals, pendingPayouts] = await ctx.db.transaction(
    async (tx) =>
      [
        await ctx.ledger.totals(tx, caller.platformId),
        await ctx.ledger.pendingPayouts(tx, caller.platformId),
      ] as const,
    { snapshot: true },
  );
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
