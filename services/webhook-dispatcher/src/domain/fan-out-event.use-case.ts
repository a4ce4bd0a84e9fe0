import { newId } from '@svc/ids';
import type { Queryable } from '@svc/ports';
import { currentTraceCarrier } from '@svc/telemetry';
import type { Delivery, WebhookContext } from './ports';
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
 * delivery, however many events (a batch of the consumer, ADR 0022); each event's payload is
 * serialised and stored once, whatever the number of its endpoints (ADR 0036). A delivery already
 * recorded for the same endpoint and public event id (a redelivered internal event) is kept as is.
 * Returns the new deliveries, as recorded (for the worker, once committed: ADR 0036).
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
): Promise<Delivery[]> {
  if (events.length === 0) return [];
  const platformIds = [...new Set(events.map(({ event }) => event.platformId))];
  const endpointsOf = new Map<string, Awaited<ReturnType<typeof ctx.endpoints.enabledOf>>>();
  for (const endpoint of await ctx.endpoints.enabledOf(tx, platformIds))
    endpointsOf.set(endpoint.platformId, [...(endpointsOf.get(endpoint.platformId) ?? []), endpoint]);
  const deliveries: Delivery[] = [];
  for (const { event, traceContext } of events) {
    let payload: string | undefined;
    for (const endpoint of endpointsOf.get(event.platformId) ?? []) {
      if (endpoint.id === options.excludeEndpointId || !endpointWants(endpoint.events, event.type)) continue;
      payload ??= JSON.stringify(event.body);
      deliveries.push({
        id: newId('del'),
        endpointId: endpoint.id,
        platformId: event.platformId,
        eventId: event.id,
        eventType: event.type,
        payload,
        test: false,
        // As the insert records it: pending, due at once, never attempted.
        status: 'pending',
        manual: false,
        attemptCount: 0,
        nextAttemptAt: now,
        lastResponseStatus: null,
        lastError: null,
        eventCreatedAt: event.createdAt,
        createdAt: now,
        // Each delivery's attempts join its event's trace.
        traceContext,
      });
    }
  }
  if (deliveries.length === 0) return [];
  if (options.inIntakeOrder === true) await ctx.deliveries.lockIntakeOrder(tx);
  const inserted = await ctx.deliveries.insertMany(tx, deliveries);
  if (inserted.length === deliveries.length) return deliveries;
  const recorded = new Set(inserted);
  return deliveries.filter((d) => recorded.has(d.id));
}

/** The events to fan out, in the trace that is active now (the consumer's span, tracing on). */
export function inCurrentTrace(events: PublicEvent[]): EventToFanOut[] {
  const traceContext = currentTraceCarrier() ?? null;
  return events.map((event) => ({ event, traceContext }));
}
