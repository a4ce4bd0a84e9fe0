import { boxForStatistics, visibleBox } from './access';
import type { Box, Policy } from './box';
import { EMPTY_SUMMARY, periodBounds, periodOf, type BoxStatistics, type BoxStatsSummary } from './box-stats';
import type { Caller, Page, RegistryContext } from './ports';

export interface BoxWithStats {
  box: Box;
  stats: BoxStatsSummary;
}

/** A box with its statistics summary. */
export async function getBox(ctx: RegistryContext, caller: Caller, id: string): Promise<BoxWithStats> {
  const box = await visibleBox(ctx, ctx.db, id, caller);
  const summaries = await ctx.stats.summaries(ctx.db, [box.id], periodOf(ctx.clock.now()));
  return { box, stats: summaries.get(box.id) ?? EMPTY_SUMMARY };
}

/** Boxes the caller may see, newest first, each with its statistics summary. */
export async function listBoxes(
  ctx: RegistryContext,
  caller: Caller,
  query: Page & { policy?: Policy | undefined; claimId?: string | undefined; q?: string | undefined },
): Promise<{ items: BoxWithStats[]; total: number }> {
  const { items, total } = await ctx.boxes.list(ctx.db, { ...query, viewerPlatformId: caller.platformId });
  const summaries = await ctx.stats.summaries(
    ctx.db,
    items.map((box) => box.id),
    periodOf(ctx.clock.now()),
  );
  return { items: items.map((box) => ({ box, stats: summaries.get(box.id) ?? EMPTY_SUMMARY })), total };
}

/** The owner's statistics of a box for a period (`YYYY-MM`; the current one when not given). */
export async function getBoxStatistics(
  ctx: RegistryContext,
  caller: Caller,
  id: string,
  requested?: string,
): Promise<BoxStatistics> {
  const box = await boxForStatistics(ctx, ctx.db, id, caller);
  const period = requested ?? periodOf(ctx.clock.now());
  return ctx.stats.statistics(ctx.db, box.id, period, periodBounds(period));
}
