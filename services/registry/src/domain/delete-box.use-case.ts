import { ownedBox } from './access';
import { periodOf } from './box-stats';
import type { Caller, RegistryContext } from './ports';
import { boxDeletedEvent } from './registry-events';

export interface DeletedBox {
  id: string;
  deleted: true;
  deletedAt: Date;
  activeLicenses: number;
  licenseAction: 'remain_active';
}

/**
 * The owner removes a box. Enforcement cancels its grace periods on `registry.box.deleted`;
 * licenses stay active (the count comes from the statistics read model).
 */
export async function deleteBox(ctx: RegistryContext, caller: Caller, id: string): Promise<DeletedBox> {
  const result = await ctx.db.transaction(async (tx) => {
    const box = await ownedBox(ctx, tx, id, caller);
    const now = ctx.clock.now();
    const summary = (await ctx.stats.summaries(tx, [box.id], periodOf(now))).get(box.id);
    await ctx.boxes.delete(tx, box.id);
    await ctx.outbox(tx, boxDeletedEvent(box, now));
    return { deletedAt: now, activeLicenses: summary?.activeLicenses ?? 0 };
  });
  ctx.eventsCommitted();
  return { id, deleted: true, licenseAction: 'remain_active', ...result };
}
