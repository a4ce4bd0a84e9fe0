import type { paths } from '@svc/sdk';

// What a platform owes, by month and as CSV (issue #32): pure, so the sums are tested apart from
// the page (services/dashboard/test/unit/billing.test.ts).

type RevenueBalance = paths['/revenue/balance']['get']['responses'][200]['content']['application/json'];
export type Payout = RevenueBalance['pending_payouts'][number];

/** Cents, summed without floating-point drift, back to currency units. */
function sum(amounts: number[]): number {
  return amounts.reduce((total, amount) => total + Math.round(amount * 100), 0) / 100;
}

interface Month {
  period: string;
  fees: number;
  royalties: number;
  total: number;
  due: string;
}

/** The lines by month, newest first: fees, royalties, their total, and the earliest due date. */
export function monthsOf(payouts: readonly Payout[]): Month[] {
  const byPeriod = new Map<string, Payout[]>();
  for (const payout of payouts) byPeriod.set(payout.period, [...(byPeriod.get(payout.period) ?? []), payout]);
  return [...byPeriod.entries()]
    .sort(([a], [b]) => b.localeCompare(a))
    .map(([period, lines]) => {
      const fees = sum(lines.filter((line) => line.kind === 'fee').map((line) => line.amount));
      const royalties = sum(lines.filter((line) => line.kind === 'royalty').map((line) => line.amount));
      const due = lines.map((line) => line.due_date).sort()[0] ?? '';
      return { period, fees, royalties, total: sum([fees, royalties]), due };
    });
}

/** A CSV field: quoted when it holds a comma, a quote or a line break (RFC 4180). */
function csvField(value: string | number): string {
  const text = String(value);
  return /[",\r\n]/.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** Every line as CSV, one per fee or royalty, amounts in currency units with two decimals. */
export function payoutsCsv(
  payouts: readonly Payout[],
  currency: string,
  identityOf: (licenseId: string) => string,
): string {
  const header = ['period', 'kind', 'license_id', 'identity', 'recipient', 'amount', 'currency', 'due_date'];
  const rows = [...payouts]
    .sort((a, b) => a.period.localeCompare(b.period) || a.license_id.localeCompare(b.license_id))
    .map((line) => [
      line.period,
      line.kind,
      line.license_id,
      identityOf(line.license_id),
      line.recipient,
      line.amount.toFixed(2),
      currency,
      line.due_date,
    ]);
  return `${[header, ...rows].map((row) => row.map(csvField).join(',')).join('\r\n')}\r\n`;
}
