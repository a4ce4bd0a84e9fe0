import { clockAdvanced } from '@svc/contracts/enforcement';
import { idempotentHandler, type Subscription } from '@svc/messaging';
import type { Database } from '@svc/storage';
import { expireDueLicensesOfLicensee } from '../../domain/expire-due-licenses.use-case';
import type { LicensingContext } from '../../domain/ports';
import { patternsOf } from '@svc/contracts/topology';

export const CLOCK_QUEUE = 'licensing.sandbox-clocks';

/**
 * enforcement.clock.advanced (a platform moved its sandbox clock): licensing adds the move to the
 * platform's offset (once per event, hence the inbox), so that every time of its licenses follows
 * the platform's clock, then that licensee's licenses due by its new time expire (or renew, or
 * reach their scheduled cancellation) as if the time had passed. The settling runs in its own
 * batches after the move is committed, on redeliveries too (it changes nothing that is not due).
 */
export function clockAdvancedSubscription(ctx: LicensingContext & { db: Database }): Subscription {
  const handle = idempotentHandler({
    db: ctx.db,
    consumer: CLOCK_QUEUE,
    clock: ctx.clock,
    handle: async (tx, envelope) => {
      const { data } = clockAdvanced.parse(envelope);
      await ctx.clocks.advance(tx, data.platformId, data.advancedBySeconds * 1000, ctx.clock.now());
    },
  });
  return {
    queue: CLOCK_QUEUE,
    patterns: patternsOf(CLOCK_QUEUE),
    handler: async (...delivery) => {
      await handle(...delivery);
      const { data } = clockAdvanced.parse(delivery[0]);
      await expireDueLicensesOfLicensee(ctx, data.platformId);
    },
  };
}
