import { errors } from '@svc/errors';
import { addMonths, assertActive, type License, type LicenseRequest, type Tier } from './license';
import { licenseRenewedEvent, requestCreatedEvent } from './licensing-events';
import { platformNow } from '@svc/clock';
import { issueCredential } from './credentials';
import type { Caller, LicensingContext } from './ports';
import { priceOf, termsOf } from './pricing';

export interface RenewedLicense {
  license: License;
  previousExpiry: Date;
  /** An upgrade waiting for the owner's review; the license is unchanged until it is approved. */
  pendingUpgrade: LicenseRequest | null;
}

/**
 * The licensee extends an active license by `term` months from its current expiry, at the owner's
 * current list price (the price list is read again: a box that no longer grants licenses, or no
 * longer offers the tier, refuses the renewal and the license runs to its expiry). An upgrade to a
 * tier that needs the owner's review (no autoApprove, or priced at approval) becomes a request the
 * owner reviews like any other; the license stays as it is meanwhile. A renewal clears a scheduled
 * cancellation.
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
    const box = await ctx.boxes.find(tx, current.boxId);
    if (box === null || box.deletedAt !== null) {
      throw errors.invalidState(`Box ${current.boxId} was deleted: the license runs to its expiry`, {
        expiresAt: current.expiresAt.toISOString(),
      });
    }
    const tier = input.tier ?? current.tier;
    const pricing = priceOf(box, tier);
    const now = await platformNow(ctx, tx, current.licenseePlatformId);
    if (tier !== current.tier && (!pricing.autoApprove || pricing.monthlyFeeCents === null)) {
      const request: LicenseRequest = {
        id: ctx.newId('req'),
        boxId: box.boxId,
        claimId: box.claimId,
        identityName: box.identityName,
        boxOwnerPlatformId: box.ownerPlatformId,
        licenseePlatformId: caller.platformId,
        licenseePlatformName: current.licenseePlatformName,
        tier,
        useCase: `Upgrade of ${current.id} from ${current.tier} to ${tier}`,
        estimatedUsers: current.terms.maxUsers,
        message: null,
        termMonths: input.term,
        autoRenew: current.autoRenew,
        monthlyFeeCents: pricing.monthlyFeeCents,
        royaltyRate: pricing.royaltyRate,
        currency: pricing.currency,
        terms: termsOf(box, current.terms.maxUsers),
        status: 'pending',
        submittedAt: now,
        decidedAt: null,
        reason: null,
        licenseId: null,
        upgradeOfLicenseId: current.id,
      };
      await ctx.requests.insert(tx, request);
      await ctx.outbox(tx, requestCreatedEvent(request, now, true));
      return { license: current, previousExpiry: current.expiresAt, pendingUpgrade: request };
    }
    const renewed: License = {
      ...current,
      tier,
      // The same tier priced by the owner at approval (enterprise) keeps the owner's price.
      monthlyFeeCents: pricing.monthlyFeeCents ?? current.monthlyFeeCents,
      royaltyRate: pricing.royaltyRate,
      currency: pricing.currency,
      expiresAt: addMonths(current.expiresAt, input.term),
      cancelAt: null,
      cancelReason: null,
    };
    await ctx.licenses.update(tx, renewed);
    await issueCredential(ctx, tx, renewed, now);
    await ctx.outbox(tx, licenseRenewedEvent(renewed, current.expiresAt, now));
    return { license: renewed, previousExpiry: current.expiresAt, pendingUpgrade: null };
  });
  ctx.eventsCommitted();
  return result;
}
