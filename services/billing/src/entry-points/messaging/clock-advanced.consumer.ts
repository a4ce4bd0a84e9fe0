import { clockAdvanced } from '@svc/contracts/enforcement';
import { idempotentHandler, type Subscription } from '@svc/messaging';
import type { Database } from '@svc/storage';
import { accrueLicenseFees } from '../../domain/accrue-license-fees.use-case';
import type { BillingContext } from '../../domain/ports';
import { patternsOf } from '@svc/contracts/topology';

export const CLOCK_QUEUE = 'billing.sandbox-clocks';

/**
 * enforcement.clock.advanced: the platform's sandbox clock moved. Billing adds the move to its
 * offset (once per event, hence the inbox) so that its periods follow the platform's time, and
 * brings that licensee's fees up to its new time.
 */
export function clockAdvancedSubscription(ctx: BillingContext & { db: Database }): Subscription {
  const handle = idempotentHandler({
    db: ctx.db,
    consumer: CLOCK_QUEUE,
    clock: ctx.clock,
    handle: async (tx, envelope) => {
      const { data } = clockAdvanced.parse(envelope);
      await ctx.clocks.advance(tx, data.platformId, data.advancedBySeconds * 1000, ctx.clock.now());
      for (const id of await ctx.licenses.activeIds(tx, data.platformId)) {
        const license = await ctx.licenses.find(tx, id, { lock: true });
        if (license !== null) await accrueLicenseFees(ctx, tx, license);
      }
    },
  });
  return {
    queue: CLOCK_QUEUE,
    patterns: patternsOf(CLOCK_QUEUE),
    handler: async (...delivery) => {
      await handle(...delivery);
      ctx.eventsCommitted();
    },
  };
}
