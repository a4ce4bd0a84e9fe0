import type { Queryable } from '@svc/storage';
import type { LicensingContext } from './ports';

/**
 * A platform's time: the service's clock plus the platform's sandbox offset (advance-time, learnt
 * from enforcement.clock.advanced). One clock per platform across every service: a licence's
 * validFrom, its current period and the end of the billing period a cancellation is scheduled for
 * are on its licensee's clock.
 */
export async function platformNow(
  ctx: Pick<LicensingContext, 'clock' | 'clocks'>,
  q: Queryable,
  platformId: string,
): Promise<Date> {
  const offset = await ctx.clocks.offsetOf(q, platformId);
  return new Date(ctx.clock.now().getTime() + offset);
}
