import { paymentDue } from '@svc/contracts/billing';
import { feeCentsOfPeriod, feePeriodOf } from '@svc/contracts/common';
import type { Queryable } from '@svc/ports';
import type { LicenseProjection } from './license';
import { dueDateOf } from './period';
import { platformNow } from '@svc/clock';
import type { BillingContext, FeeCharge } from './ports';

/** When a license stops accruing its fee: when it ended, else its expiry. */
export function feeEndOf(license: Pick<LicenseProjection, 'status' | 'endedAt' | 'expiresAt'>): Date {
  return license.status !== 'active' && license.endedAt !== null ? license.endedAt : license.expiresAt;
}

/** Every period from `first` to `last` (YYYY-MM, inclusive). */
function periodsBetween(first: string, last: string): string[] {
  const periods: string[] = [];
  let [year, month] = first.split('-').map(Number) as [number, number];
  for (let i = 0; i < 1200; i += 1) {
    const period = `${year}-${String(month).padStart(2, '0')}`;
    if (period > last) break;
    periods.push(period);
    month += 1;
    if (month > 12) {
      month = 1;
      year += 1;
    }
  }
  return periods;
}

/**
 * Brings a license's fees up to date on its licensee's clock (docs/adr/0012-license-fees.md):
 * each billing period (calendar month, UTC) from `validFrom` up to the current one, and not past
 * the license's end, is charged monthlyFee × the share of the month the license is active,
 * rounded half-up. A period billed before is recomputed (an expiry moved by a renewal, an early
 * cancellation): a change is a ledger adjustment, never an edit, and payment.due carries the
 * period's current fee (0 included). A period keeps the price it was first billed at.
 */
export async function accrueLicenseFees(
  ctx: BillingContext,
  tx: Queryable,
  license: LicenseProjection,
): Promise<number> {
  if (license.status === 'pending') return 0;
  const now = await platformNow(ctx, tx, license.licenseePlatformId);
  const end = feeEndOf(license);
  const charged = new Map((await ctx.fees.ofLicense(tx, license.id)).map((c) => [c.period, c]));
  const lastActive = feePeriodOf(new Date(end.getTime() - 1));
  const current = feePeriodOf(now);
  const last = lastActive < current ? lastActive : current;
  const periods = new Set([...periodsBetween(feePeriodOf(license.validFrom), last), ...charged.keys()]);
  let changes = 0;
  for (const period of [...periods].sort()) {
    const previous = charged.get(period) ?? null;
    const price = previous?.monthlyFeeCents ?? license.monthlyFeeCents;
    const amount = feeCentsOfPeriod(price, license.validFrom, end, period);
    if (previous === null ? amount === 0n : previous.amountCents === amount) continue;
    const charge: FeeCharge = {
      licenseId: license.id,
      period,
      version: (previous?.version ?? 0) + 1,
      amountCents: amount,
      monthlyFeeCents: price,
      updatedAt: now,
    };
    await ctx.fees.save(tx, charge);
    const entryId = ctx.newId('led');
    const dueDate = dueDateOf(period);
    await ctx.ledger.append(tx, {
      id: entryId,
      kind: previous === null ? 'accrual' : 'adjustment',
      charge: 'fee',
      reportId: null,
      licenseId: license.id,
      period,
      payerPlatformId: license.licenseePlatformId,
      recipientPlatformId: license.boxOwnerPlatformId,
      amountCents: amount - (previous?.amountCents ?? 0n),
      currency: license.currency,
      dueDate,
      createdAt: now,
    });
    await ctx.outbox(
      tx,
      paymentDue.create(
        {
          paymentId: entryId,
          kind: 'fee',
          version: charge.version,
          licenseId: license.id,
          boxId: license.boxId,
          period,
          amountCents: amount,
          currency: license.currency,
          recipient: license.boxOwnerPlatformId,
          payerPlatformId: license.licenseePlatformId,
          dueDate: dueDate.toISOString(),
        },
        { occurredAt: now, platformId: license.licenseePlatformId },
      ),
    );
    changes += 1;
  }
  return changes;
}

/** The fee job: every active license (of one licensee, if given) brought up to date, one transaction each. */
export async function accrueDueFees(ctx: BillingContext, licenseePlatformId?: string): Promise<number> {
  let changes = 0;
  for (const id of await ctx.licenses.activeIds(ctx.db, licenseePlatformId)) {
    changes += await ctx.db.transaction(async (tx) => {
      const license = await ctx.licenses.find(tx, id, { lock: true });
      return license === null ? 0 : accrueLicenseFees(ctx, tx, license);
    });
  }
  if (changes > 0) ctx.eventsCommitted();
  return changes;
}
