import type { Queryable } from '@svc/storage';
import type { EnforcementContext } from './ports';

/**
 * A platform's time: real time plus its sandbox offset (advance-time). Every instant a platform
 * sees — detection, deadlines, resolutions, events — is on its own clock.
 */
export async function platformNow(
  ctx: Pick<EnforcementContext, 'clock' | 'clocks'>,
  q: Queryable,
  platformId: string,
): Promise<Date> {
  const offset = await ctx.clocks.offsetOf(q, platformId);
  return new Date(ctx.clock.now().getTime() + offset);
}
