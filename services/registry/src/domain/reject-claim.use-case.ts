import { AppError, errors } from '@svc/errors';
import { assertRejectable, type Claim } from './claim';
import type { Caller, RegistryContext } from './ports';
import { forgetFacesNow } from './forget-faces';
import { claimRejectedEvent } from './registry-events';

/** The verification provider (the operator API) refused a pending claim. */
export async function rejectClaim(
  ctx: RegistryContext,
  caller: Caller,
  id: string,
  reason: string,
): Promise<Claim> {
  if (caller.role !== 'operator') throw new AppError('FORBIDDEN', 'Only the operator API rejects claims');
  const claim = await ctx.db.transaction(async (tx) => {
    const found = await ctx.claims.find(tx, id, { lock: true });
    if (found === null) throw errors.notFound('Claim', id);
    assertRejectable(found);
    const now = ctx.clock.now();
    const rejected: Claim = { ...found, status: 'rejected', rejectionReason: reason, updatedAt: now };
    await ctx.claims.update(tx, rejected);
    await ctx.outbox(tx, claimRejectedEvent(rejected, reason, now));
    return rejected;
  });
  ctx.eventsCommitted();
  await forgetFacesNow(ctx, { claimId: claim.id });
  return claim;
}
