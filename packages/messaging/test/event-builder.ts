import type { EventEnvelope } from '@svc/contracts';
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
