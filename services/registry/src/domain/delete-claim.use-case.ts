import { ownedClaim } from './access';
import type { Caller, RegistryContext } from './ports';
import { forgetFacesNow } from './forget-faces';
import { boxDeletedEvent, claimDeletedEvent } from './registry-events';

/** The owner deletes a claim; its box goes with it (and is announced as deleted). */
export async function deleteClaim(
  ctx: RegistryContext,
  caller: Caller,
  id: string,
): Promise<{ id: string; deleted: true; deletedAt: Date }> {
  const deletedAt = await ctx.db.transaction(async (tx) => {
    const claim = await ownedClaim(ctx, tx, id, caller);
    const now = ctx.clock.now();
    if (claim.boxId !== null) {
      const box = await ctx.boxes.find(tx, claim.boxId, { lock: true });
      if (box !== null) {
        await ctx.boxes.delete(tx, box.id);
        await ctx.outbox(tx, boxDeletedEvent(box, now));
      }
    }
    await ctx.claims.delete(tx, claim.id);
    await ctx.outbox(tx, claimDeletedEvent(claim, now));
    return now;
  });
  ctx.eventsCommitted();
  await forgetFacesNow(ctx, { claimId: id });
  return { id, deleted: true, deletedAt };
}
