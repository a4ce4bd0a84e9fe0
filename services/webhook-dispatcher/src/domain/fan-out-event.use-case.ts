import { newId } from '@svc/ids';
import type { Queryable } from '@svc/ports';
import { currentTraceCarrier } from '@svc/telemetry';
import type { NewDelivery, WebhookContext } from './ports';
import { endpointWants, type PublicEvent } from './public-events';

/** A public event to fan out, with the trace it came in (tracing on; null otherwise). */
export interface EventToFanOut {
  event: PublicEvent;
  traceContext: Record<string, string> | null;
}

/**
 * Records one delivery per (public event, enabled endpoint of its platform that wants it), in
 * the caller's transaction, in the order of `events` (each endpoint receives them in that order).
 * One query reads the endpoints of every platform concerned and one statement inserts every
 * delivery, however many events (a batch of the consumer, ADR 0022). A delivery already recorded
 * for the same endpoint and public event id (a redelivered internal event) is kept as is.
 * Returns how many deliveries are new.
 */
export async function fanOutEvents(
  ctx: Pick<WebhookContext, 'endpoints' | 'deliveries'>,
  tx: Queryable,
  events: EventToFanOut[],
  now: Date,
  options: {
    excludeEndpointId?: string;
    /**
     * Intake (ADR 0022): take the intake-order lock before inserting, so that deliveries become
     * visible in the order of their seq even when two intake transactions overlap.
     */
    inIntakeOrder?: boolean;
  } = {},
): Promise<number> {
  if (events.length === 0) return 0;
  const platformIds = [...new Set(events.map(({ event }) => event.platformId))];
  const endpointsOf = new Map<string, Awaited<ReturnType<typeof ctx.endpoints.enabledOf>>>();
  for (const endpoint of await ctx.endpoints.enabledOf(tx, platformIds))
    endpointsOf.set(endpoint.platformId, [...(endpointsOf.get(endpoint.platformId) ?? []), endpoint]);
  const deliveries: NewDelivery[] = [];
  for (const { event, traceContext } of events) {
    for (const endpoint of endpointsOf.get(event.platformId) ?? []) {
      if (endpoint.id === options.excludeEndpointId || !endpointWants(endpoint.events, event.type)) continue;
      deliveries.push({
        id: newId('del'),
        endpointId: endpoint.id,
        platformId: event.platformId,
        eventId: event.id,
        eventType: event.type,
        payload: JSON.stringify(event.body),
        test: false,
        eventCreatedAt: event.createdAt,
        createdAt: now,
        // Each delivery's attempts join its event's trace.
        traceContext,
      });
    }
  }
  if (deliveries.length === 0) return 0;
  if (options.inIntakeOrder === true) await ctx.deliveries.lockIntakeOrder(tx);
  return ctx.deliveries.insertMany(tx, deliveries);
}

/** The events to fan out, in the trace that is active now (the consumer's span, tracing on). */
export function inCurrentTrace(events: PublicEvent[]): EventToFanOut[] {
  const traceContext = currentTraceCarrier() ?? null;
  return events.map((event) => ({ event, traceContext }));
}
