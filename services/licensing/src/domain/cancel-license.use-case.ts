import { errors } from '@svc/errors';
import { assertActive, scheduledCancellationAt, type CancelTiming, type License } from './license';
import { licenseCancelledEvent } from './licensing-events';
import { platformNow } from '@svc/clock';
import type { Caller, LicensingContext } from './ports';

export interface CancelledLicense {
  license: License;
  effectiveDate: CancelTiming;
  /** When it is (immediate) or will be (end_of_billing_period) cancelled. */
  effectiveAt: Date;
}

/**
 * The licensee cancels an active license: at once (cancelled now, license.cancelled), or at the
 * end of the current billing month (it stays active until then; the expiry job cancels it and
 * publishes license.cancelled). A scheduled cancellation can be made immediate, not scheduled twice.
 */
export async function cancelLicense(
  ctx: LicensingContext,
  caller: Caller,
  id: string,
  input: { reason?: string | undefined; effectiveDate?: CancelTiming | undefined },
): Promise<CancelledLicense> {
  const effectiveDate = input.effectiveDate ?? 'immediate';
  const result = await ctx.db.transaction(async (tx) => {
    const current = await ctx.licenses.find(tx, id, { lock: true });
    if (current === null || current.licenseePlatformId !== caller.platformId)
      throw errors.notFound('License', id);
    assertActive(current, 'cancelled');
    const now = await platformNow(ctx, tx, current.licenseePlatformId);
    if (effectiveDate === 'end_of_billing_period') {
      if (current.cancelAt !== null) {
        throw errors.invalidState(`License ${id} is already scheduled to be cancelled`, {
          cancelsAt: current.cancelAt.toISOString(),
        });
      }
      const cancelAt = scheduledCancellationAt(now, current.expiresAt);
      const scheduled: License = { ...current, cancelAt, cancelReason: input.reason ?? null };
      await ctx.licenses.update(tx, scheduled);
      return { license: scheduled, effectiveDate, effectiveAt: cancelAt };
    }
    const cancelled: License = {
      ...current,
      status: 'cancelled',
      cancelAt: null,
      cancelReason: input.reason ?? current.cancelReason,
      endedAt: now,
    };
    await ctx.licenses.update(tx, cancelled);
    await ctx.outbox(tx, licenseCancelledEvent(cancelled, 'immediate', now, now));
    return { license: cancelled, effectiveDate, effectiveAt: now };
  });
  ctx.eventsCommitted();
  return result;
}
