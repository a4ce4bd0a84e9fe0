import { AsyncLocalStorage } from 'node:async_hooks';
import { trace } from '@opentelemetry/api';
import pino, { type DestinationStream, type Logger, type LoggerOptions } from 'pino';

export type { Logger } from 'pino';

interface RequestContext {
  requestId: string;
  platformId?: string;
}

const context = new AsyncLocalStorage<RequestContext>();

/** Runs `fn` with a request context whose id every log line (and every event published) carries. */
export function withRequestContext<T>(ctx: RequestContext, fn: () => T): T {
  return context.run(ctx, fn);
}

/** The request id of the current async context, if any. */
export function currentRequestId(): string | undefined {
  return context.getStore()?.requestId;
}

/** The current request context, if any. */
export function currentRequestContext(): RequestContext | undefined {
  return context.getStore();
}

// Where credentials show up in what we log: request headers, key and webhook-secret objects.
const REDACTED_PATHS = [
  'authorization',
  '*.authorization',
  'headers.authorization',
  'req.headers.authorization',
  '*.headers.authorization',
  'key',
  '*.key',
  'secret',
  '*.secret',
];

/**
 * The line's own fields, without a second `service` key: pino writes the base `service` and then
 * the logged object as they are, so `logger.info({ service: 'detection' })` (a line about another
 * service, as the embedded process and the operator API write) gave JSON with two `service` keys,
 * which most parsers read as the last one. Such a field is kept as `peerService`.
 */
function withoutSecondService(service: string, fields: Record<string, unknown>): Record<string, unknown> {
  if (!('service' in fields)) return fields;
  const { service: named, ...rest } = fields;
  return named === service || named === undefined ? rest : { ...rest, peerService: named };
}

/**
 * The trace id of the active span, when tracing is on (the OpenTelemetry API answers undefined
 * at once when no tracer provider is registered): a log line leads to its trace.
 */
function traceIdOfActiveSpan(): string | undefined {
  const span = trace.getActiveSpan();
  if (span === undefined) return undefined;
  const { traceId, traceFlags } = span.spanContext();
  // Unsampled spans are not exported: a trace id nobody can look up helps no one.
  return (traceFlags & 1) === 1 ? traceId : undefined;
}

/**
 * A JSON logger for a service; each line carries `service` (once), the current request id and,
 * when tracing is on, the trace id.
 * `options.level` is the service's LOG_LEVEL from its typed config (default info).
 * `destination` (optional) receives the lines instead of stdout, e.g. a stream a test reads.
 */
export function createLogger(
  service: string,
  options: LoggerOptions = {},
  destination?: DestinationStream,
): Logger {
  const settings: LoggerOptions = {
    level: 'info',
    base: { service },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: { paths: REDACTED_PATHS, censor: '[redacted]' },
    mixin() {
      const ctx = context.getStore();
      const traceId = traceIdOfActiveSpan();
      if (ctx === undefined) return traceId === undefined ? {} : { traceId };
      return traceId === undefined ? { requestId: ctx.requestId } : { requestId: ctx.requestId, traceId };
    },
    formatters: { log: (fields) => withoutSecondService(service, fields) },
    ...options,
  };
  return destination === undefined ? pino(settings) : pino(settings, destination);
}
