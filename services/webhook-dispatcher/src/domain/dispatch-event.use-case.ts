import type { Queryable } from '@svc/ports';
import { fanOutEvents } from './fan-out-event.use-case';
import type { InternalEvent, WebhookContext } from './ports';
import { toPublicEvents } from './public-events';

/**
 * An internal event arrived: record a delivery of each public event it becomes to every enabled
 * endpoint of its platform that wants it, in the consumer's transaction (the message is acked
 * after it commits).
 */
export async function dispatchEvent(
  ctx: Pick<WebhookContext, 'endpoints' | 'deliveries' | 'clock'>,
  tx: Queryable,
  envelope: InternalEvent,
): Promise<number> {
  const events = toPublicEvents(envelope);
  if (events.length === 0) return 0;
  return fanOutEvents(ctx, tx, events, ctx.clock.now());
}
