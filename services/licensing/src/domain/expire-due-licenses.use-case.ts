import { addMonths, dueAction, type License } from './license';
import { licenseCancelledEvent, licenseExpiredEvent, licenseRenewedEvent } from './licensing-events';
import { platformNow } from '@svc/clock';
import { issueCredential } from './credentials';
import type { LicensingContext } from './ports';

export interface ExpiryRun {
  expired: number;
  renewed: number;
  cancelled: number;
}

const BATCH = 100;
/** A license renewed this many terms in one pass is left for the next (a clock moved years). */
const MAX_RENEWALS_PER_PASS = 1000;

/**
 * The periodic job: every active license whose time has come by its licensee's clock (the service's
 * clock plus the licensee's sandbox offset) is cancelled (a scheduled cancellation), renewed for
 * another term (autoRenew; one license.renewed per term, until it runs past now) or expired.
 * Batches of 100 in their own transactions, until none is due.
 */
export function expireDueLicenses(ctx: LicensingContext): Promise<ExpiryRun> {
  return settleDueLicenses(ctx);
}

/**
 * The same for one licensee whose sandbox clock moved (enforcement.clock.advanced, once the move is
 * in its offset): its licenses due by its new time are cancelled, renewed or expired as if the time
 * had passed. Running it again changes nothing that is not due, so a redelivered event is harmless.
 */
export function expireDueLicensesOfLicensee(
  ctx: LicensingContext,
  licenseePlatformId: string,
): Promise<ExpiryRun> {
  return settleDueLicenses(ctx, licenseePlatformId);
}

async function settleDueLicenses(ctx: LicensingContext, licenseePlatformId?: string): Promise<ExpiryRun> {
  const run: ExpiryRun = { expired: 0, renewed: 0, cancelled: 0 };
  for (;;) {
    const handled = await ctx.db.transaction(async (tx) => {
      const due = await ctx.licenses.lockDue(tx, ctx.clock.now(), BATCH, licenseePlatformId);
      for (const license of due) {
        const now = await platformNow(ctx, tx, license.licenseePlatformId);
        const action = dueAction(license, now);
        if (action === 'cancel') {
          const cancelAt = license.cancelAt ?? now;
          const cancelled: License = { ...license, status: 'cancelled', cancelAt: null, endedAt: cancelAt };
          await ctx.licenses.update(tx, cancelled);
          await ctx.outbox(tx, licenseCancelledEvent(cancelled, 'end_of_billing_period', cancelAt, now));
          run.cancelled += 1;
        } else if (action === 'expire') {
          const expired: License = { ...license, status: 'expired', endedAt: license.expiresAt };
          await ctx.licenses.update(tx, expired);
          await ctx.outbox(tx, licenseExpiredEvent(expired, now));
          run.expired += 1;
        } else if (action === 'renew') {
          let current = license;
          for (let i = 0; i < MAX_RENEWALS_PER_PASS && dueAction(current, now) === 'renew'; i += 1) {
            const renewed: License = {
              ...current,
              expiresAt: addMonths(current.expiresAt, current.termMonths),
            };
            await ctx.outbox(tx, licenseRenewedEvent(renewed, current.expiresAt, now));
            current = renewed;
            run.renewed += 1;
          }
          await ctx.licenses.update(tx, current);
          // One credential for the period it now runs to (not one per term passed).
          await issueCredential(ctx, tx, current, now);
        }
      }
      return due.length;
    });
    ctx.eventsCommitted();
    if (handled < BATCH) return run;
  }
}
