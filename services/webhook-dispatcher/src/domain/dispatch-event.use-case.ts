import type { Queryable } from '@svc/ports';
import { fanOutEvents, type EventToFanOut } from './fan-out-event.use-case';
import type { Delivery, WebhookContext } from './ports';
import type { PublicEvent } from './public-events';

/** What an internal event became (toPublicEvents), with the trace it arrived in. */
export interface ArrivedEvent {
  events: PublicEvent[];
  traceContext: Record<string, string> | null;
}

/**
 * Internal events arrived (one batch of the consumer, each as the public events it becomes): record a delivery of each public event
 * they become to every enabled endpoint of its platform that wants it, in the consumer's
 * transaction (the messages are acked after it commits), in arrival order. Intake transactions
 * insert their deliveries one after the other (a transaction lock held until commit): the seq
 * order of an endpoint's deliveries is the order they become visible, so the worker, which sends
 * oldest seq first, never sends a delivery before an older one that was not yet committed.
 * Returns the new deliveries, for the worker once the transaction has committed (ADR 0036).
 */
export async function dispatchEvents(
  ctx: Pick<WebhookContext, 'endpoints' | 'deliveries' | 'clock'>,
  tx: Queryable,
  arrived: ArrivedEvent[],
): Promise<Delivery[]> {
  const events: EventToFanOut[] = arrived.flatMap(({ events: becomes, traceContext }) =>
    becomes.map((event) => ({ event, traceContext })),
  );
  return fanOutEvents(ctx, tx, events, ctx.clock.now(), { inIntakeOrder: true });
}
