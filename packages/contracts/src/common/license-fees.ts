// How a license's monthly fee is billed (docs/adr/0012-license-fees.md): per calendar month (UTC),
// the billing period of usage reports too, prorated to the time the license is active in it, in
// integer cents rounded half-up. Licensing shows it; billing accrues it. One rule for both.

import { proratedCents, type Cents } from '@svc/money';

/** The name of the rule, shown in a license's detail and the balance. */
export const FEE_BASIS = 'prorated_calendar_month' as const;

const PERIOD = /^(\d{4})-(0[1-9]|1[0-2])$/;

/** The first instant of a `YYYY-MM` period and of the next one (UTC). */
export function periodBounds(period: string): { start: Date; end: Date } {
  const match = PERIOD.exec(period);
  if (match === null) throw new RangeError(`not a YYYY-MM period: ${period}`);
  const year = Number(match[1]);
  const month = Number(match[2]) - 1;
  return { start: new Date(Date.UTC(year, month, 1)), end: new Date(Date.UTC(year, month + 1, 1)) };
}

/** The `YYYY-MM` period an instant falls in (UTC). */
export function feePeriodOf(instant: Date): string {
  return instant.toISOString().slice(0, 7);
}

/**
 * The fee of one period for a license active over [activeFrom, activeUntil): the monthly fee ×
 * the share of the month it is active, rounded half-up to a cent. A whole month is the whole fee;
 * no overlap is 0.
 */
export function feeCentsOfPeriod(
  monthlyFeeCents: number | bigint,
  activeFrom: Date,
  activeUntil: Date,
  period: string,
): Cents {
  const { start, end } = periodBounds(period);
  const from = Math.max(start.getTime(), activeFrom.getTime());
  const until = Math.min(end.getTime(), activeUntil.getTime());
  if (until <= from) return 0n;
  return proratedCents(
    BigInt(monthlyFeeCents),
    BigInt(until - from),
    BigInt(end.getTime() - start.getTime()),
  );
}
