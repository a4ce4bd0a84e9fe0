import { errors } from '@svc/errors';
import type { Queryable } from '@svc/storage';
import { assertDecidable, type License, type LicenseRequest } from './license';
import { requestDeniedEvent } from './licensing-events';
import type { Caller, LicensingContext } from './ports';
import { grantLicense } from './request-license.use-case';

/**
 * Who decides: the box owner (review), or, in the sandbox, the requester itself (the test helper
 * stands in for the owner, contracts.md §9). Anyone else gets 404, as if the request did not exist.
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

/** The reviewer approves a pending request: its license is active from now. */
export async function approveLicenseRequest(
  ctx: LicensingContext,
  caller: Caller,
  id: string,
  reviewer: Reviewer,
): Promise<{ request: LicenseRequest; license: License }> {
  const result = await ctx.db.transaction(async (tx) => {
    const request = await decidableRequest(ctx, tx, caller, id, reviewer);
    const box = await ctx.boxes.find(tx, request.boxId);
    if (box === null || box.deletedAt !== null) {
      throw errors.invalidState(`Box ${request.boxId} was deleted: the request can only be denied`);
    }
    return grantLicense(ctx, tx, request, false, ctx.clock.now());
  });
  ctx.eventsCommitted();
  return result;
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
    const now = ctx.clock.now();
    const updated: LicenseRequest = { ...request, status: 'denied', decidedAt: now, reason };
    await ctx.requests.update(tx, updated);
    await ctx.outbox(tx, requestDeniedEvent(updated, reason, now));
    return updated;
  });
  ctx.eventsCommitted();
  return denied;
}
