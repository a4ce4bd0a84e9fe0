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
  const runOnce = (): Promise<T> => {
    running ??= options.run().finally(() => {
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
