import { errors } from '@svc/errors';

/**
 * How many uploads this replica reads and stores at once, and one account's share of them
 * (docs/spec/contracts.md §17): the bytes of an upload are held in memory while it is checked and
 * stored (5 MiB at most), so the budget bounds memory and keeps one account's uploads from
 * holding up everyone's. Past either limit: 429 RATE_LIMITED, before the body is read.
 */
export class UploadBudget {
  private running = 0;
  private readonly byAccount = new Map<string, number>();

  constructor(private readonly options: { inFlight: number; perAccount: number; now: () => Date }) {}

  /** Takes a place for the account's upload; the answer gives it back (once). */
  take(accountId: string): () => void {
    const mine = this.byAccount.get(accountId) ?? 0;
    if (this.running >= this.options.inFlight || mine >= this.options.perAccount) {
      const limit = mine >= this.options.perAccount ? this.options.perAccount : this.options.inFlight;
      const now = this.options.now();
      throw errors.rateLimited(
        'Too many pictures are being uploaded now; retry in a second',
        limit,
        new Date(now.getTime() + 1000),
        now,
      );
    }
    this.running += 1;
    this.byAccount.set(accountId, mine + 1);
    let given = false;
    return () => {
      if (given) return;
      given = true;
      this.running -= 1;
      const left = (this.byAccount.get(accountId) ?? 1) - 1;
      if (left === 0) this.byAccount.delete(accountId);
      else this.byAccount.set(accountId, left);
    };
  }
}
