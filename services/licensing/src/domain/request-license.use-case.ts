import { errors } from '@svc/errors';
import type { Queryable } from '@svc/ports';
import {
  DEFAULT_AUTO_RENEW,
  DEFAULT_TERM_MONTHS,
  licenseFromRequest,
  type License,
  type LicenseRequest,
  type Tier,
} from './license';
import { licenseActivatedEvent, requestApprovedEvent, requestCreatedEvent } from './licensing-events';
import { platformNow } from '@svc/clock';
import { issueCredential } from './credentials';
import type { Caller, LicensingContext } from './ports';
import { priceOf, termsOf } from './pricing';
import { ensureBoxProjected } from './project-box.use-case';

export interface RequestLicenseInput {
  boxId: string;
  tier: Tier;
  useCase: string;
  estimatedUsers?: number | undefined;
  message?: string | undefined;
  term?: number | undefined;
  autoRenew?: boolean | undefined;
}

export interface RequestedLicense {
  request: LicenseRequest;
  /** The license when the tier is approved automatically. */
  license: License | null;
}

/**
 * A platform asks for a license on a box. The price comes from the box's policy; a tier the box
 * approves automatically is approved at once and its license is active, otherwise the request
 * waits for the box owner (or the sandbox test helper).
 */
export async function requestLicense(
  ctx: LicensingContext,
  caller: Caller,
  input: RequestLicenseInput,
): Promise<RequestedLicense> {
  // A box created a moment ago may not be projected yet: the registry is asked (ADR 0010).
  await ensureBoxProjected(ctx, input.boxId);
  const result = await ctx.db.transaction(async (tx) => {
    const box = await ctx.boxes.find(tx, input.boxId);
    if (box === null || box.deletedAt !== null) throw errors.notFound('Box', input.boxId);
    if (box.ownerPlatformId === caller.platformId) {
      throw errors.invalidState('A box owner does not license its own box', { boxId: box.boxId });
    }
    const pricing = priceOf(box, input.tier);
    await assertNotHeld(ctx, tx, caller.platformId, box.boxId, input.tier);
    const now = await platformNow(ctx, tx, caller.platformId);
    const request: LicenseRequest = {
      id: ctx.newId('req'),
      boxId: box.boxId,
      claimId: box.claimId,
      identityName: box.identityName,
      boxOwnerPlatformId: box.ownerPlatformId,
      licenseePlatformId: caller.platformId,
      licenseePlatformName: caller.platformName,
      tier: input.tier,
      useCase: input.useCase,
      estimatedUsers: input.estimatedUsers ?? null,
      message: input.message ?? null,
      termMonths: input.term ?? DEFAULT_TERM_MONTHS,
      autoRenew: input.autoRenew ?? DEFAULT_AUTO_RENEW,
      monthlyFeeCents: pricing.monthlyFeeCents,
      royaltyRate: pricing.royaltyRate,
      currency: pricing.currency,
      terms: termsOf(box, input.estimatedUsers ?? null),
      status: 'pending',
      submittedAt: now,
      decidedAt: null,
      reason: null,
      licenseId: null,
      upgradeOfLicenseId: null,
    };
    await ctx.requests.insert(tx, request);
    await ctx.outbox(tx, requestCreatedEvent(request, now, !pricing.autoApprove));
    if (!pricing.autoApprove) return { request, license: null };
    return grantLicense(ctx, tx, request, true, now);
  });
  ctx.eventsCommitted();
  return result;
}

/** One active license per licensee, box and tier: asking again names the one it holds (409). */
export async function assertNotHeld(
  ctx: LicensingContext,
  tx: Queryable,
  licenseePlatformId: string,
  boxId: string,
  tier: Tier,
): Promise<void> {
  const held = await ctx.licenses.findActiveHolding(tx, licenseePlatformId, boxId, tier);
  if (held !== null) {
    throw errors.invalidState(`An active ${tier} license on this box exists: ${held.id}`, {
      licenseId: held.id,
      tier,
    });
  }
}

/** Approves a pending request: the license is active from `now` (request.approved, license.activated). */
export async function grantLicense(
  ctx: LicensingContext,
  tx: Queryable,
  pending: LicenseRequest,
  automatic: boolean,
  now: Date,
): Promise<{ request: LicenseRequest; license: License }> {
  if (pending.monthlyFeeCents === null) throw new Error(`request ${pending.id} has no price to grant`);
  const license = licenseFromRequest(pending, ctx.newId('lic'), now);
  const request: LicenseRequest = { ...pending, status: 'approved', decidedAt: now, licenseId: license.id };
  await ctx.licenses.insert(tx, license);
  await ctx.requests.update(tx, request);
  await issueCredential(ctx, tx, license, now);
  await ctx.outbox(
    tx,
    requestApprovedEvent(request, license.id, automatic, now),
    licenseActivatedEvent(license, now),
  );
  return { request, license };
}
