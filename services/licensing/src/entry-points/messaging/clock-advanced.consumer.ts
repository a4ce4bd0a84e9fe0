import { clockAdvanced } from '@svc/contracts';
import type { Subscription } from '@svc/messaging';
import { expireDueLicensesOfLicensee } from '../../domain/expire-due-licenses.use-case';
import type { LicensingContext } from '../../domain/ports';

export const CLOCK_QUEUE = 'licensing.sandbox-clocks';

/**
 * enforcement.clock.advanced (a platform moved its sandbox clock): that licensee's licenses due by
 * its new time expire (or renew, or reach their scheduled cancellation) as if the time had passed.
 * The use case runs its own batches; applying an event twice changes nothing, so no inbox record.
 */
export function clockAdvancedSubscription(ctx: LicensingContext): Subscription {
  return {
    queue: CLOCK_QUEUE,
    patterns: [clockAdvanced.type],
    handler: async (received) => {
      const { data } = clockAdvanced.parse(received);
      await expireDueLicensesOfLicensee(ctx, data.platformId, new Date(data.now));
    },
  };
}
