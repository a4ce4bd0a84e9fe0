import type { BoxSnapshot } from '@svc/contracts/registry';
import { errors } from '@svc/errors';
import type { RegistryContext } from './ports';
import { boxEventData } from './registry-events';

/**
 * Another service has not heard of a box yet (its projection misses it) and asks: the box as
 * registry.box.* describes it, with the version of its latest event (ADR 0010). The version is
 * read before the box (and the claim's before the claim), so the state is at least that new: an event still on its way with a
 * higher version then brings the same or a later state. NOT_FOUND when there is no such box.
 */
export async function readBoxSnapshot(ctx: RegistryContext, boxId: string): Promise<BoxSnapshot> {
  return ctx.db.transaction(async (tx) => {
    const version = await ctx.entityVersion(tx, boxId);
    const box = await ctx.boxes.find(tx, boxId);
    if (box === null) throw errors.notFound('Box', boxId);
    const claimVersion = await ctx.entityVersion(tx, box.claimId);
    const claim = await ctx.claims.find(tx, box.claimId);
    if (claim === null) throw errors.notFound('Box', boxId);
    return { version, entity: boxEventData(box, claim, claimVersion) };
  });
}
