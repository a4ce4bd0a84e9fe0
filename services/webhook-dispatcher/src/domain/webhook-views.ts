import type { Attempt, Delivery, Endpoint } from './ports';

// The public shapes of endpoints and deliveries (webhooks.operations.ts). The secret appears
// only where a caller asks for it: on create and on rotation.

export function endpointView(e: Endpoint) {
  return {
    id: e.id,
    url: e.url,
    events: e.events,
    description: e.description,
    status: e.status,
    disabledReason: e.disabledReason,
    createdAt: e.createdAt.toISOString(),
    updatedAt: e.updatedAt.toISOString(),
  };
}

export function endpointWithSecretView(e: Endpoint) {
  return { ...endpointView(e), secret: e.secret };
}

export function deliveryView(d: Delivery, attempts: Attempt[]) {
  return {
    id: d.id,
    endpointId: d.endpointId,
    eventId: d.eventId,
    eventType: d.eventType,
    status: d.status,
    test: d.test,
    // The body as sent, signed (every attempt sends the same bytes).
    payload: JSON.parse(d.payload) as unknown,
    attemptCount: d.attemptCount,
    nextAttemptAt: d.status === 'pending' && d.nextAttemptAt !== null ? d.nextAttemptAt.toISOString() : null,
    lastResponseStatus: d.lastResponseStatus,
    lastError: d.lastError,
    createdAt: d.createdAt.toISOString(),
    attempts: attempts
      .filter((a) => a.deliveryId === d.id)
      .map((a) => ({
        number: a.number,
        attemptedAt: a.attemptedAt.toISOString(),
        outcome: a.outcome,
        responseStatus: a.responseStatus,
        responseBody: a.responseBody,
        durationMs: a.durationMs,
        error: a.error,
        nextRetryAt: a.nextRetryAt === null ? null : a.nextRetryAt.toISOString(),
      })),
  };
}
