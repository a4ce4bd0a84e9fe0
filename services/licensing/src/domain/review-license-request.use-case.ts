import { errors } from '@svc/errors';
import type { Queryable } from '@svc/ports';
import { addMonths, assertActive, assertDecidable, type License, type LicenseRequest } from './license';
import { licenseRenewedEvent, requestApprovedEvent, requestDeniedEvent } from './licensing-events';
import { platformNow } from '@svc/clock';
import { issueCredential } from './credentials';
import type { Caller, LicensingContext } from './ports';
import { priceOf } from './pricing';
import { assertNotHeld, grantLicense } from './request-license.use-case';
import type { Cents } from '@svc/money';

/**
 * Who decides: the box owner (review), or, in the sandbox, the requester itself (the test helper
 * stands in for the owner, docs/spec/contracts.md §9). Anyone else gets 404, as if the request did not exist.
 */
export type Reviewer = 'box_owner' | 'test_helper';

async function decidableRequest(
  ctx: LicensingContext,
  tx: Queryable,
  caller: Caller,
  id: string,
  reviewer: Reviewer,
): Promise<LicenseRequest> {
  if (reviewer === 'test_helper' && caller.environment !== 'sandbox') {
    throw errors.forbidden('Test helpers are available to sandbox keys only');
  }
  const request = await ctx.requests.find(tx, id, { lock: true });
  const allowed =
    request !== null &&
    (reviewer === 'box_owner'
      ? request.boxOwnerPlatformId === caller.platformId
      : request.licenseePlatformId === caller.platformId);
  if (request === null || !allowed) throw errors.notFound('License request', id);
  assertDecidable(request);
  return request;
}

/**
 * The reviewer approves a pending request at the owner's current list price (a tier the owner
 * prices, enterprise, takes `monthlyFeeCents` from the approval; a listed price cannot be
 * overridden). A new request's license is active from now; an upgrade (a renewal to a reviewed
 * tier) changes the license it names and extends it by the request's term.
 */
export async function approveLicenseRequest(
  ctx: LicensingContext,
  caller: Caller,
  id: string,
  reviewer: Reviewer,
  input: { monthlyFeeCents?: Cents | undefined } = {},
): Promise<{ request: LicenseRequest; license: License }> {
  const result = await ctx.db.transaction(async (tx) => {
    const request = await decidableRequest(ctx, tx, caller, id, reviewer);
    const box = await ctx.boxes.find(tx, request.boxId);
    if (box === null || box.deletedAt !== null) {
      throw errors.invalidState(`Box ${request.boxId} was deleted: the request can only be denied`);
    }
    const pricing = priceOf(box, request.tier);
    if (pricing.monthlyFeeCents !== null && input.monthlyFeeCents !== undefined) {
      throw errors.validation('Invalid request', {
        fields: [{ field: 'monthlyFee', message: `the owner's price list fixes the ${request.tier} price` }],
      });
    }
    const monthlyFeeCents = pricing.monthlyFeeCents ?? input.monthlyFeeCents;
    if (monthlyFeeCents === undefined) {
      throw errors.validation('Invalid request', {
        fields: [
          { field: 'monthlyFee', message: `required: the owner prices the ${request.tier} tier at approval` },
        ],
      });
    }
    const priced: LicenseRequest = {
      ...request,
      monthlyFeeCents,
      royaltyRate: pricing.royaltyRate,
      currency: pricing.currency,
    };
    const now = await platformNow(ctx, tx, priced.licenseePlatformId);
    if (priced.upgradeOfLicenseId !== null) return upgradeLicense(ctx, tx, priced, now);
    await assertNotHeld(ctx, tx, priced.licenseePlatformId, priced.boxId, priced.tier);
    return grantLicense(ctx, tx, priced, false, now);
  });
  ctx.eventsCommitted();
  return result;
}

/** An approved upgrade: the license takes the tier and price and runs `termMonths` longer. */
async function upgradeLicense(
  ctx: LicensingContext,
  tx: Queryable,
  request: LicenseRequest,
  now: Date,
): Promise<{ request: LicenseRequest; license: License }> {
  const licenseId = request.upgradeOfLicenseId ?? '';
  const current = await ctx.licenses.find(tx, licenseId, { lock: true });
  if (current === null) throw errors.notFound('License', licenseId);
  assertActive(current, 'upgraded');
  const license: License = {
    ...current,
    tier: request.tier,
    monthlyFeeCents: request.monthlyFeeCents ?? current.monthlyFeeCents,
    royaltyRate: request.royaltyRate,
    currency: request.currency,
    expiresAt: addMonths(current.expiresAt, request.termMonths),
    cancelAt: null,
    cancelReason: null,
  };
  const approved: LicenseRequest = { ...request, status: 'approved', decidedAt: now, licenseId: license.id };
  await ctx.licenses.update(tx, license);
  await ctx.requests.update(tx, approved);
  await issueCredential(ctx, tx, license, now);
  await ctx.outbox(
    tx,
    requestApprovedEvent(approved, license.id, false, now),
    licenseRenewedEvent(license, current.expiresAt, now),
  );
  return { request: approved, license };
}

/** The reviewer denies a pending request, with a reason the requester sees. */
export async function denyLicenseRequest(
  ctx: LicensingContext,
  caller: Caller,
  id: string,
  reason: string,
  reviewer: Reviewer,
): Promise<LicenseRequest> {
  const denied = await ctx.db.transaction(async (tx) => {
    const request = await decidableRequest(ctx, tx, caller, id, reviewer);
    const now = await platformNow(ctx, tx, request.licenseePlatformId);
    const updated: LicenseRequest = { ...request, status: 'denied', decidedAt: now, reason };
    await ctx.requests.update(tx, updated);
    await ctx.outbox(tx, requestDeniedEvent(updated, reason, now));
    return updated;
  });
  ctx.eventsCommitted();
  return denied;
}
