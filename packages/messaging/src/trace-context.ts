import type { EventEnvelope } from '@svc/contracts/common';
import { currentTraceCarrier, inSpan, SpanKind, tracingEnabled, type TraceCarrier } from '@svc/telemetry';

const SCOPE = 'svc.messaging';

/**
 * The trace context of the code that writes an event (the request or consumer span that caused
 * it), kept with its outbox row so that the relay, which publishes later from its own loop,
 * publishes it inside the same trace. Null when tracing is off or nothing is traced.
 */
export function traceContextToStore(): TraceCarrier | null {
  return currentTraceCarrier() ?? null;
}

/**
 * Runs a publish as a PRODUCER span under the trace context stored with its outbox row (the bus
 * then puts the span's `traceparent` in the message headers). Without one, it just publishes.
 */
export function publishInTrace(
  envelope: EventEnvelope,
  stored: TraceCarrier | null | undefined,
  publish: () => Promise<void>,
): Promise<void> {
  if (stored === null || stored === undefined || !tracingEnabled()) return publish();
  return inSpan(
    SCOPE,
    `${envelope.type} publish`,
    {
      kind: SpanKind.PRODUCER,
      parent: stored,
      attributes: { 'messaging.destination.name': envelope.type, 'messaging.message.id': envelope.id },
    },
    publish,
  );
}

/** The trace context to send with a message published now: the active span's, if any. */
export function messageTraceHeaders(): TraceCarrier | undefined {
  return currentTraceCarrier();
}

/**
 * Runs a consumer's handler as a CONSUMER span under the trace context the message carries
 * (`traceparent` in its headers). A message without one is handled untraced, as it was sent.
 */
export function consumeInTrace<T>(
  queue: string,
  envelope: EventEnvelope,
  headers: Record<string, unknown> | undefined,
  attempt: number,
  handle: () => Promise<T>,
): Promise<T> {
  if (headers === undefined || headers.traceparent === undefined || !tracingEnabled()) return handle();
  return inSpan(
    SCOPE,
    `${queue} process`,
    {
      kind: SpanKind.CONSUMER,
      parent: headers,
      attributes: {
        'messaging.destination.name': queue,
        'messaging.message.id': envelope.id,
        'svc.event.type': envelope.type,
        'svc.attempt': attempt,
      },
    },
    handle,
  );
}
