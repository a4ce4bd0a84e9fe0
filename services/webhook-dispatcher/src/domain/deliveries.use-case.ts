import { errors } from '@svc/errors';
import { currentTraceCarrier } from '@svc/telemetry';
import { newId } from '@svc/ids';
import { MAX_REPLAYED_DELIVERIES, type WebhookEventType } from '@svc/contracts/webhook-dispatcher';
import type { DeliveryStatus, Endpoint, WebhookContext } from './ports';
import { sampleEvent } from './sample-events';
import { deliveryView } from './webhook-views';

type Ctx = Pick<WebhookContext, 'db' | 'endpoints' | 'deliveries' | 'attempts' | 'clock' | 'kick'>;

async function owned(ctx: Ctx, platformId: string, id: string): Promise<Endpoint> {
  const endpoint = await ctx.endpoints.find(ctx.db, platformId, id);
  if (endpoint === null) throw errors.notFound('Webhook endpoint', id);
  return endpoint;
}

/** Deliveries of one endpoint, newest first, each with every attempt. */
export async function listDeliveries(
  ctx: Ctx,
  platformId: string,
  endpointId: string,
  query: { limit: number; offset: number; status?: DeliveryStatus | undefined },
) {
  await owned(ctx, platformId, endpointId);
  const { items, total } = await ctx.deliveries.list(ctx.db, endpointId, query);
  const attempts = await ctx.attempts.of(
    ctx.db,
    items.map((d) => d.id),
  );
  return {
    data: items.map((d) => deliveryView(d, attempts)),
    meta: { total, limit: query.limit, offset: query.offset },
  };
}

/** Sends a delivery again now: one attempt, whatever its status. */
export async function retryDelivery(ctx: Ctx, platformId: string, endpointId: string, deliveryId: string) {
  const endpoint = await owned(ctx, platformId, endpointId);
  const delivery = await ctx.deliveries.find(ctx.db, endpointId, deliveryId);
  if (delivery === null) throw errors.notFound('Delivery', deliveryId);
  if (endpoint.status !== 'enabled') {
    throw errors.invalidState('The endpoint is disabled: enable it first (PATCH status "enabled")');
  }
  await ctx.deliveries.requeueManually(ctx.db, delivery.id, ctx.clock.now());
  ctx.kick();
  const updated = await ctx.deliveries.find(ctx.db, endpointId, deliveryId);
  if (updated === null) throw errors.notFound('Delivery', deliveryId);
  return deliveryView(updated, await ctx.attempts.of(ctx.db, [updated.id]));
}

/**
 * Sends again every delivery of the endpoint that failed for good since `since` (an endpoint that
 * was down): one attempt each, oldest first, at most MAX_REPLAYED_DELIVERIES a call.
 */
export async function replayFailed(ctx: Ctx, platformId: string, endpointId: string, since: Date) {
  const endpoint = await owned(ctx, platformId, endpointId);
  if (endpoint.status !== 'enabled') {
    throw errors.invalidState('The endpoint is disabled: enable it first (PATCH status "enabled")');
  }
  const { queued, more } = await ctx.deliveries.requeueFailedSince(
    ctx.db,
    endpointId,
    since,
    ctx.clock.now(),
    MAX_REPLAYED_DELIVERIES,
  );
  if (queued > 0) ctx.kick();
  return { endpointId, since: since.toISOString(), queued, more };
}

/** Queues a signed sample event of `type` (default grace_period.started) to one endpoint. */
export async function sendTestEvent(
  ctx: Ctx,
  platformId: string,
  input: { endpointId: string; type?: WebhookEventType | undefined },
) {
  const endpoint = await owned(ctx, platformId, input.endpointId);
  if (endpoint.status !== 'enabled') throw errors.invalidState('The endpoint is disabled');
  const now = ctx.clock.now();
  const event = sampleEvent(input.type ?? 'grace_period.started', platformId, now);
  const id = newId('del');
  await ctx.deliveries.insertMany(ctx.db, [
    {
      id,
      endpointId: endpoint.id,
      platformId,
      eventId: event.id,
      eventType: event.type,
      payload: JSON.stringify(event.body),
      test: true,
      eventCreatedAt: now,
      createdAt: now,
      // The test request's trace (tracing on): its delivery shows in the same trace.
      traceContext: currentTraceCarrier() ?? null,
    },
  ]);
  ctx.kick();
  const delivery = await ctx.deliveries.find(ctx.db, endpoint.id, id);
  if (delivery === null) throw errors.internal();
  return deliveryView(delivery, []);
}
