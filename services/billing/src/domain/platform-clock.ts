import type { Queryable } from '@svc/storage';
import type { BillingContext } from './ports';

/**
 * A platform's time: the service's clock plus the platform's sandbox offset (advance-time, learnt
 * from enforcement.clock.advanced). One clock per platform across every service: periods, due
 * fees and "the future" are judged on it.
 */
export async function platformNow(
  ctx: Pick<BillingContext, 'clock' | 'clocks'>,
  q: Queryable,
  platformId: string,
): Promise<Date> {
  const offset = await ctx.clocks.offsetOf(q, platformId);
  return new Date(ctx.clock.now().getTime() + offset);
}
