import { AsyncLocalStorage } from 'node:async_hooks';
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
 * A JSON logger for a service; each line carries `service` and the current request id.
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
      return ctx === undefined ? {} : { requestId: ctx.requestId };
    },
    ...options,
  };
  return destination === undefined ? pino(settings) : pino(settings, destination);
}
