import { performance } from 'node:perf_hooks';
import { webhookEndpointDisabled } from '@svc/contracts';
import { isTransientFailure } from '@svc/errors';
import { isFetchGuardError } from '@svc/fetch-guard';
import { appendToOutbox } from '@svc/messaging';
import type { Queryable } from '@svc/ports';
import { inSpan, injectTraceContext, markFailed, SpanKind } from '@svc/telemetry';
import { fetchPolicyOf } from './endpoint-url';
import { fanOutEvents } from './fan-out-event.use-case';
import { signingSecrets } from './manage-endpoints.use-case';
import type { Delivery, Endpoint, WebhookContext } from './ports';
import { endpointDisabledEvent } from './public-events';
import { breakerCooldownMs, failedForTooLong, retryDelayMs } from './retry-schedule';
import { webhookHeaders } from './webhook-signature';

/** Receivers answer with a short acknowledgement; a larger answer is cut off and counts as a failure. */
const MAX_RESPONSE_BYTES = 1024 * 1024;

export interface AttemptOutcome {
  deliveryId: string;
  endpointId: string;
  outcome: 'succeeded' | 'failed';
  responseStatus: number | null;
  durationMs: number;
  error: string | null;
  /** Set when this attempt disabled the endpoint. */
  disabled?: 'gone' | 'failing';
  eventCreatedAt: Date;
}

/**
 * One attempt; with tracing on and a delivery made in a trace, a CLIENT span of that trace whose
 * `traceparent` the POST carries (a receiver that traces joins it; the signature does not cover it).
 */
function send(ctx: WebhookContext, endpoint: Endpoint, delivery: Delivery) {
  if (delivery.traceContext === null) return attempt(ctx, endpoint, delivery);
  return inSpan(
    'svc.webhook-dispatcher',
    `webhook ${delivery.eventType}`,
    {
      kind: SpanKind.CLIENT,
      parent: delivery.traceContext,
      attributes: {
        'svc.delivery_id': delivery.id,
        'svc.endpoint_id': endpoint.id,
        'svc.event.type': delivery.eventType,
        'svc.attempt': delivery.attemptCount + 1,
      },
    },
    async (span) => {
      const sent = await attempt(ctx, endpoint, delivery);
      if (sent.responseStatus !== null) span?.setAttribute('http.response.status_code', sent.responseStatus);
      if (sent.error !== null) markFailed(span, sent.error);
      return sent;
    },
  );
}

async function attempt(ctx: WebhookContext, endpoint: Endpoint, delivery: Delivery) {
  const headers: Record<string, string> = {
    'content-type': 'application/json',
    'user-agent': 'svc-webhooks/1',
    ...webhookHeaders({
      id: delivery.eventId,
      timestamp: ctx.clock.now(),
      body: delivery.payload,
      secrets: signingSecrets(endpoint, ctx.clock.now()),
    }),
  };
  injectTraceContext(headers);
  const started = performance.now();
  try {
    const response = await ctx.fetch(endpoint.url, {
      method: 'POST',
      headers,
      body: delivery.payload,
      timeoutMs: ctx.attemptTimeoutMs,
      maxBytes: MAX_RESPONSE_BYTES,
      // Standard Webhooks: a redirect is not followed; it counts as a failure.
      maxRedirects: 0,
      ...fetchPolicyOf(ctx),
    });
    const ok = response.status >= 200 && response.status < 300;
    return {
      responseStatus: response.status,
      durationMs: Math.round(performance.now() - started),
      error: ok ? null : `HTTP ${response.status}`,
    };
  } catch (err) {
    const error = isFetchGuardError(err)
      ? `${err.reason}: ${err.message}`
      : `error: ${err instanceof Error ? err.message : String(err)}`;
    return { responseStatus: null, durationMs: Math.round(performance.now() - started), error };
  }
}

async function disable(
  ctx: WebhookContext,
  tx: Queryable,
  endpoint: Endpoint,
  reason: 'gone' | 'failing',
  lastError: string | null,
  now: Date,
): Promise<void> {
  await ctx.endpoints.disable(tx, endpoint.id, reason, now);
  await appendToOutbox(
    tx,
    webhookEndpointDisabled.create(
      { endpointId: endpoint.id, url: endpoint.url, reason, disabledAt: now.toISOString(), lastError },
      { occurredAt: now, platformId: endpoint.platformId },
    ),
  );
  // The platform hears of it on its other endpoints (those that want webhook.endpoint_disabled).
  const event = endpointDisabledEvent({
    platformId: endpoint.platformId,
    endpointId: endpoint.id,
    url: endpoint.url,
    reason,
    disabledAt: now,
    lastError,
  });
  await fanOutEvents(ctx, tx, [event], now, { excludeEndpointId: endpoint.id });
  ctx.logger.warn(
    { endpointId: endpoint.id, platformId: endpoint.platformId, reason },
    'webhook endpoint disabled',
  );
}

// How long the outcome of a sent delivery is held while the database is unavailable.
const RECORD_BUDGET_MS = 60_000;
const RECORD_RETRY_CAP_MS = 2000;

/**
 * Records what happened to a sent delivery. Once the endpoint has answered, forgetting the answer
 * would send the delivery again (a second delivery after a 200), so a database outage is waited
 * out here (capped backoff, up to a minute) while this worker still holds the endpoint; only a
 * longer outage or a real error gives up, and then the delivery is sent again later (at least once).
 */
async function recordOutcome(
  ctx: WebhookContext,
  deliveryId: string,
  record: (tx: Queryable) => Promise<void>,
): Promise<void> {
  const started = performance.now();
  for (let attempt = 1; ; attempt += 1) {
    try {
      await ctx.db.transaction(record);
      return;
    } catch (err) {
      if (!isTransientFailure(err) || performance.now() - started > RECORD_BUDGET_MS) throw err;
      const delay = Math.min(RECORD_RETRY_CAP_MS, 100 * 2 ** Math.min(attempt - 1, 10));
      ctx.logger.warn(
        { err, deliveryId, attempt, delay },
        'webhook worker: recording a sent delivery, retrying',
      );
      await new Promise((resolve) => setTimeout(resolve, delay));
    }
  }
}

/**
 * Sends the oldest due delivery of one endpoint (the caller holds the endpoint's lease) and
 * records the attempt: success, a retry on the schedule, `failed` when the schedule is spent, or
 * the endpoint disabled (410 Gone at once; or no success for days). Null when nothing is due.
 */
export async function deliverNext(ctx: WebhookContext, endpointId: string): Promise<AttemptOutcome | null> {
  const startedAt = ctx.clock.now();
  const endpoint = await ctx.endpoints.byId(ctx.db, endpointId);
  if (endpoint === null || endpoint.status !== 'enabled') return null;
  if (endpoint.breakerOpenUntil !== null && endpoint.breakerOpenUntil.getTime() > startedAt.getTime())
    return null;
  const delivery = await ctx.deliveries.nextDue(ctx.db, endpointId, startedAt);
  if (delivery === null) return null;

  const sent = await send(ctx, endpoint, delivery);
  const now = ctx.clock.now();
  const succeeded = sent.error === null;
  const number = delivery.attemptCount + 1;
  const gone = sent.responseStatus === 410;
  const delay = succeeded || gone || delivery.manual ? null : retryDelayMs(number, ctx.retry);
  const nextRetryAt = delay === null ? null : new Date(now.getTime() + delay);
  const outcome: AttemptOutcome = {
    deliveryId: delivery.id,
    endpointId,
    outcome: succeeded ? 'succeeded' : 'failed',
    responseStatus: sent.responseStatus,
    durationMs: sent.durationMs,
    error: sent.error,
    eventCreatedAt: delivery.eventCreatedAt,
  };

  await recordOutcome(ctx, delivery.id, async (tx) => {
    await ctx.attempts.insert(tx, {
      deliveryId: delivery.id,
      number,
      attemptedAt: startedAt,
      outcome: outcome.outcome,
      responseStatus: sent.responseStatus,
      durationMs: sent.durationMs,
      error: sent.error,
      nextRetryAt,
    });
    await ctx.deliveries.recordAttempt(tx, {
      id: delivery.id,
      status: succeeded ? 'succeeded' : nextRetryAt === null ? 'failed' : 'pending',
      attemptCount: number,
      nextAttemptAt: nextRetryAt,
      lastResponseStatus: sent.responseStatus,
      lastError: sent.error,
    });
    if (succeeded) {
      await ctx.endpoints.recordSuccess(tx, endpointId, now);
      return;
    }
    const streak = await ctx.endpoints.recordFailure(
      tx,
      endpointId,
      now,
      ctx.retry.breakerThreshold,
      new Date(now.getTime() + breakerCooldownMs(ctx.retry)),
    );
    if (gone) outcome.disabled = 'gone';
    else if (failedForTooLong(streak.failingSince, now, ctx.retry)) outcome.disabled = 'failing';
    if (outcome.disabled !== undefined) await disable(ctx, tx, endpoint, outcome.disabled, sent.error, now);
  });
  if (outcome.disabled !== undefined) {
    ctx.kick();
    ctx.kickOutbox();
  }
  return outcome;
}
