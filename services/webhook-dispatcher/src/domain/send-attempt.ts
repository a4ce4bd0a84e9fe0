import { performance } from 'node:perf_hooks';
import { isFetchGuardError } from '@svc/fetch-guard';
import { inSpan, injectTraceContext, markFailed, SpanKind } from '@svc/telemetry';
import { fetchPolicyOf } from './endpoint-url';
import { signingSecrets } from './manage-endpoints.use-case';
import type { Delivery, SendingEndpoint, WebhookContext } from './ports';
import { webhookHeaders } from './webhook-signature';

// One attempt at a delivery: the signed POST and what the receiver answered.

/** Receivers answer with a short acknowledgement; a larger answer is cut off and counts as a failure. */
const MAX_RESPONSE_BYTES = 1024 * 1024;
/** How much of an answer's body each attempt keeps, for the developer reading the delivery log. */
export const RESPONSE_EXCERPT_CHARS = 1024;

/** The start of an answer's body as text (NUL, which PostgreSQL's text refuses, replaced); null when empty. */
export function excerptOf(body: Buffer): string | null {
  if (body.length === 0) return null;
  return body
    .subarray(0, RESPONSE_EXCERPT_CHARS * 4)
    .toString('utf8')
    .slice(0, RESPONSE_EXCERPT_CHARS)
    .replaceAll('\u0000', '\uFFFD');
}

/**
 * One attempt; with tracing on and a delivery made in a trace, a CLIENT span of that trace whose
 * `traceparent` the POST carries (a receiver that traces joins it; the signature does not cover it).
 */
export function send(ctx: WebhookContext, endpoint: SendingEndpoint, delivery: Delivery) {
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

async function attempt(ctx: WebhookContext, endpoint: SendingEndpoint, delivery: Delivery) {
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
      responseBody: excerptOf(response.body),
      durationMs: Math.round(performance.now() - started),
      error: ok ? null : `HTTP ${response.status}`,
    };
  } catch (err) {
    const error = isFetchGuardError(err)
      ? `${err.reason}: ${err.message}`
      : `error: ${err instanceof Error ? err.message : String(err)}`;
    return {
      responseStatus: null,
      responseBody: null,
      durationMs: Math.round(performance.now() - started),
      error,
    };
  }
}
