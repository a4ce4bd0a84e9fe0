import { errors } from '@svc/errors';
import { addMonths, assertActive, type License, type Tier } from './license';
import { licenseRenewedEvent } from './licensing-events';
import type { Caller, LicensingContext } from './ports';
import { priceOf } from './pricing';

export interface RenewedLicense {
  license: License;
  previousExpiry: Date;
}

/**
 * The licensee extends an active license by `term` months from its current expiry. A new tier
 * is priced from the box's current policy; a renewal clears a scheduled cancellation.
 */
export async function renewLicense(
  ctx: LicensingContext,
  caller: Caller,
  id: string,
  input: { term: number; tier?: Tier | undefined },
): Promise<RenewedLicense> {
  const result = await ctx.db.transaction(async (tx) => {
    const current = await ctx.licenses.find(tx, id, { lock: true });
    if (current === null || current.licenseePlatformId !== caller.platformId)
      throw errors.notFound('License', id);
    assertActive(current, 'renewed');
    let repriced: Pick<License, 'tier' | 'monthlyFeeCents' | 'royaltyRate' | 'currency'> = current;
    if (input.tier !== undefined && input.tier !== current.tier) {
      const box = await ctx.boxes.find(tx, current.boxId);
      if (box === null || box.deletedAt !== null) {
        throw errors.invalidState(`Box ${current.boxId} was deleted: the tier cannot change`);
      }
      const pricing = priceOf(box, input.tier);
      repriced = {
        tier: input.tier,
        monthlyFeeCents: pricing.monthlyFeeCents,
        royaltyRate: pricing.royaltyRate,
        currency: pricing.currency,
      };
    }
    const now = ctx.clock.now();
    const renewed: License = {
      ...current,
      ...repriced,
      expiresAt: addMonths(current.expiresAt, input.term),
      cancelAt: null,
      cancelReason: null,
    };
    await ctx.licenses.update(tx, renewed);
    await ctx.outbox(tx, licenseRenewedEvent(renewed, current.expiresAt, now));
    return { license: renewed, previousExpiry: current.expiresAt };
  });
  ctx.eventsCommitted();
  return result;
}
