import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from '@svc/logger';
import type { BackgroundPart } from './start-http-service';

/** A background job that runs its pass every `intervalMs` (never two passes at once). */
export interface PeriodicJob<T = unknown> extends BackgroundPart {
  /** One pass now, or the pass in progress; resolves with what the pass returned. */
  runOnce(): Promise<T>;
}

/** Runs `run` every `intervalMs` (0 turns the timer off; `runOnce` still works), logging failures. */
export function periodicJob<T>(options: {
  name: string;
  intervalMs: number;
  logger: Logger;
  run(): Promise<T>;
}): PeriodicJob<T> {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<T> | undefined;
  // A pass is the job's own, even when a request asks for it: it runs in the context the job was
  // made in, so it never joins the request's transactions (its Idempotency-Key, ADR 0011), spans or
  // log fields. A request that kicked it and answers does not wait for it.
  const inJobContext = AsyncLocalStorage.snapshot();
  const runOnce = (): Promise<T> => {
    running ??= inJobContext(() => options.run()).finally(() => {
      running = undefined;
    });
    return running;
  };
  return {
    name: options.name,
    runOnce,
    start() {
      if (options.intervalMs <= 0) return;
      timer = setInterval(() => {
        runOnce().catch((err: unknown) =>
          options.logger.error({ err, job: options.name }, 'job pass failed'),
        );
      }, options.intervalMs);
      timer.unref();
    },
    async stop() {
      if (timer !== undefined) clearInterval(timer);
      timer = undefined;
      await running?.catch(() => undefined);
    },
  };
}
