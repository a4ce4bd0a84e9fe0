import type { Logger } from '@svc/logger';

export interface Stoppable {
  name: string;
  stop: () => Promise<void>;
}

export interface ShutdownOptions {
  /** Whole-shutdown budget; past it the process exits 1 (default 20 s, under Kubernetes' 30 s grace period). */
  deadlineMs?: number;
  signals?: NodeJS.Signals[];
  /** Where signals come from and how the process ends; tests pass fakes. */
  process?: Pick<NodeJS.Process, 'on' | 'exit'>;
}

const DEFAULT_DEADLINE_MS = 20_000;

/** Stops each part in order (http first, then relay, bus, database), logging each; resolves true when all stopped within the deadline. */
export async function stopInOrder(
  stoppables: Stoppable[],
  logger: Logger,
  deadlineMs = DEFAULT_DEADLINE_MS,
): Promise<boolean> {
  let timer: NodeJS.Timeout | undefined;
  const overtime = new Promise<'overtime'>((resolve) => {
    timer = setTimeout(() => resolve('overtime'), deadlineMs);
  });
  const stopAll = async (): Promise<boolean> => {
    let allStopped = true;
    for (const part of stoppables) {
      try {
        await part.stop();
        logger.info({ part: part.name }, `${part.name} stopped`);
      } catch (err) {
        // Keep going: the database must still be closed when the bus failed to stop.
        allStopped = false;
        logger.error({ err, part: part.name }, `${part.name} failed to stop`);
      }
    }
    return allStopped;
  };
  try {
    const outcome = await Promise.race([stopAll(), overtime]);
    if (outcome === 'overtime') {
      logger.error({ deadlineMs }, 'Shutdown took longer than its deadline');
      return false;
    }
    return outcome;
  } finally {
    clearTimeout(timer);
  }
}

/** On SIGTERM or SIGINT stops each part in order, logs, and exits 0 (1 when a stop failed or took over 20 s). */
export function runUntilSignalled(
  stoppables: Stoppable[],
  logger: Logger,
  options: ShutdownOptions = {},
): void {
  const proc = options.process ?? process;
  const signals = options.signals ?? ['SIGTERM', 'SIGINT'];
  let shuttingDown = false;
  const onSignal = (signal: NodeJS.Signals): void => {
    if (shuttingDown) {
      // A second Ctrl-C means "now": do not make the operator wait out the drain.
      logger.warn({ signal }, 'Second signal during shutdown; exiting at once');
      proc.exit(1);
      return;
    }
    shuttingDown = true;
    logger.info({ signal }, 'Shutting down');
    void stopInOrder(stoppables, logger, options.deadlineMs).then((ok) => {
      logger.info({ exitCode: ok ? 0 : 1 }, 'Shutdown complete');
      proc.exit(ok ? 0 : 1);
    });
  };
  // `on`, not `once`: a second signal must reach the handler above rather than Node's default kill.
  for (const signal of signals) proc.on(signal, onSignal);
}
