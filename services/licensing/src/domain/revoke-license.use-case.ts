import { errors } from '@svc/errors';
import { assertActive, type License } from './license';
import { licenseRevokedEvent } from './licensing-events';
import { platformNow } from '@svc/clock';
import type { Caller, LicensingContext } from './ports';

/**
 * The owner of the box takes back an active license on it. The licensee itself is refused (403:
 * it sees the license but may not revoke it; it cancels instead); anyone else gets 404.
 */
export async function revokeLicense(
  ctx: LicensingContext,
  caller: Caller,
  id: string,
  reason: string | null,
): Promise<License> {
  const revoked = await ctx.db.transaction(async (tx) => {
    const current = await ctx.licenses.find(tx, id, { lock: true });
    if (current === null) throw errors.notFound('License', id);
    if (current.boxOwnerPlatformId !== caller.platformId) {
      if (current.licenseePlatformId === caller.platformId) {
        throw errors.forbidden('Only the owner of the box revokes a license; cancel it instead');
      }
      throw errors.notFound('License', id);
    }
    assertActive(current, 'revoked');
    const now = await platformNow(ctx, tx, current.licenseePlatformId);
    const updated: License = { ...current, status: 'revoked', cancelAt: null, endedAt: now };
    await ctx.licenses.update(tx, updated);
    await ctx.outbox(tx, licenseRevokedEvent(updated, reason, now));
    return updated;
  });
  ctx.eventsCommitted();
  return revoked;
}
