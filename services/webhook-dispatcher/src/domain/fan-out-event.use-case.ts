import { newId } from '@svc/ids';
import type { Queryable } from '@svc/ports';
import { currentTraceCarrier } from '@svc/telemetry';
import type { NewDelivery, WebhookContext } from './ports';
import { endpointWants, type PublicEvent } from './public-events';

/**
 * Records one delivery per (public event, enabled endpoint of its platform that wants it), in
 * the caller's transaction. A delivery already recorded for the same endpoint and public event
 * id (a redelivered internal event) is kept as is. Returns how many deliveries are new.
 */
export async function fanOutEvents(
  ctx: Pick<WebhookContext, 'endpoints' | 'deliveries'>,
  tx: Queryable,
  events: PublicEvent[],
  now: Date,
  options: { excludeEndpointId?: string } = {},
): Promise<number> {
  const byPlatform = new Map<string, PublicEvent[]>();
  for (const event of events)
    byPlatform.set(event.platformId, [...(byPlatform.get(event.platformId) ?? []), event]);
  const deliveries: NewDelivery[] = [];
  // The consumer's span (tracing on): each delivery's attempts join the event's trace.
  const traceContext = currentTraceCarrier() ?? null;
  for (const [platformId, platformEvents] of byPlatform) {
    const endpoints = await ctx.endpoints.enabledOf(tx, platformId);
    for (const event of platformEvents) {
      for (const endpoint of endpoints) {
        if (endpoint.id === options.excludeEndpointId || !endpointWants(endpoint.events, event.type))
          continue;
        deliveries.push({
          id: newId('del'),
          endpointId: endpoint.id,
          platformId,
          eventId: event.id,
          eventType: event.type,
          payload: JSON.stringify(event.body),
          test: false,
          eventCreatedAt: event.createdAt,
          createdAt: now,
          traceContext,
        });
      }
    }
  }
  return deliveries.length === 0 ? 0 : ctx.deliveries.insertMany(tx, deliveries);
}
