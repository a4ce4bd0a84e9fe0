import type { LicenseSnapshot } from '@svc/contracts/licensing';
import { errors } from '@svc/errors';
import { licenseData } from './licensing-events';
import type { LicensingContext } from './ports';

/**
 * Another service has not heard of a license yet (its projection misses it) and asks: the
 * license as licensing.license.* describes it, with the version of its latest event (ADR 0010),
 * read before the license so the state is at least that new. NOT_FOUND when there is none.
 */
export async function readLicenseSnapshot(
  ctx: LicensingContext,
  licenseId: string,
): Promise<LicenseSnapshot> {
  return ctx.db.transaction(async (tx) => {
    const version = await ctx.entityVersion(tx, licenseId);
    const license = await ctx.licenses.find(tx, licenseId);
    if (license === null) throw errors.notFound('License', licenseId);
    return { version, entity: { ...licenseData(license), endedAt: license.endedAt?.toISOString() ?? null } };
  });
}
