import type { EventEnvelope } from '@svc/contracts/common';
import { createLogger, type Logger } from '@svc/logger';
import { newId } from '@svc/ids';

/** A valid envelope of `type` (at least three dot-separated words). */
export function anEvent(type: string, data: Record<string, unknown> = {}): EventEnvelope {
  return { id: newId('evt'), type, version: 1, occurredAt: new Date().toISOString(), data };
}

/** A silent logger; TEST_LOG_LEVEL=debug shows what the buses and relays say. */
export function testLogger(): Logger {
  return createLogger('messaging-test', { level: process.env.TEST_LOG_LEVEL ?? 'silent' });
}

/** A promise to release by hand, to hold a handler in flight. */
export function gate(): { promise: Promise<void>; open(): void } {
  let open = (): void => undefined;
  const promise = new Promise<void>((resolve) => {
    open = resolve;
  });
  return { promise, open };
}

/** A logger that keeps what it is told, as `{msg, ...fields}` objects, for assertions on log lines. */
export function capturingLogger(): { logger: Logger; lines: Array<Record<string, unknown>> } {
  const lines: Array<Record<string, unknown>> = [];
  const logger = createLogger(
    'messaging-test',
    { level: 'debug' },
    {
      write: (line: string) => void lines.push(JSON.parse(line) as Record<string, unknown>),
    },
  );
  return { logger, lines };
}

/** What node-postgres throws while the database refuses connections. */
export function databaseDown(): Error {
  return Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
}
