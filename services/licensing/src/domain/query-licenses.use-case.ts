import { errors } from '@svc/errors';
import type { BoxView } from './box';
import {
  periodOf,
  type License,
  type LicenseRequest,
  type LicenseStatus,
  type RequestStatus,
  type Tier,
} from './license';
import { platformNow } from '@svc/clock';
import type { UsageFigures } from './billing.client';
import type { Caller, LicensingContext, Page } from './ports';
import { secondFamilyTermsOf, type SecondFamilyTerms } from './pricing';

/** The caller's licenses, newest first. */
export function listLicenses(
  ctx: LicensingContext,
  caller: Caller,
  query: Page & { status?: LicenseStatus | undefined; boxId?: string | undefined; tier?: Tier | undefined },
): Promise<{ items: License[]; total: number }> {
  return ctx.licenses.list(ctx.db, { ...query, licenseePlatformId: caller.platformId });
}

/**
 * One of the caller's licenses, with the usage reported for the current period (zeros when none),
 * read from billing, which owns usage (SERVICE_UNAVAILABLE when billing cannot answer).
 */
export async function getLicense(
  ctx: LicensingContext,
  caller: Caller,
  id: string,
): Promise<{ license: License; period: string; usage: UsageFigures }> {
  const license = await ctx.licenses.find(ctx.db, id);
  if (license === null || license.licenseePlatformId !== caller.platformId)
    throw errors.notFound('License', id);
  const period = periodOf(await platformNow(ctx, ctx.db, license.licenseePlatformId));
  const usage = await ctx.billing.usageOf(license.id, period);
  return { license, period, usage };
}

/** One of the caller's own requests, with its license once approved. */
export async function getOwnLicenseRequest(
  ctx: LicensingContext,
  caller: Caller,
  id: string,
): Promise<{ request: LicenseRequest; license: License | null }> {
  const request = await ctx.requests.find(ctx.db, id);
  if (request === null || request.licenseePlatformId !== caller.platformId) {
    throw errors.notFound('License request', id);
  }
  const license = request.licenseId === null ? null : await ctx.licenses.find(ctx.db, request.licenseId);
  return { request, license };
}

/** The requests on a box, for its owner only (anyone else: 404). */
export async function listBoxLicenseRequests(
  ctx: LicensingContext,
  caller: Caller,
  boxId: string,
  query: Page & { status?: RequestStatus | undefined },
): Promise<{ items: LicenseRequest[]; total: number }> {
  const box = await ctx.boxes.find(ctx.db, boxId);
  if (box === null || box.ownerPlatformId !== caller.platformId) throw errors.notFound('Box', boxId);
  return ctx.requests.listForBox(ctx.db, { ...query, boxId });
}

/** A live box by its id or its claim's id (the second family's identity_id). */
export async function boxOfIdentity(ctx: LicensingContext, identityId: string): Promise<BoxView> {
  const box = await ctx.boxes.findByIdentity(ctx.db, identityId);
  if (box === null || box.deletedAt !== null) throw errors.notFound('Identity', identityId);
  return box;
}

/** `GET /licensing/terms/{identity_id}`. */
export async function getLicensingTerms(
  ctx: LicensingContext,
  identityId: string,
): Promise<SecondFamilyTerms> {
  return secondFamilyTermsOf(await boxOfIdentity(ctx, identityId));
}
