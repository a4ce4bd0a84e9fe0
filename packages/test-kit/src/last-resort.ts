// Servers and processes a test started must not outlive it, even when the test runner is
// interrupted (Ctrl-C, a CI timeout) before its afterAll runs. Cleanups registered here run
// synchronously on exit and on SIGINT, SIGTERM and SIGHUP (which are then re-raised).

const cleanups = new Set<() => void>();
let installed = false;

function runAll(): void {
  for (const cleanup of cleanups) {
    try {
      cleanup();
    } catch {
      // best effort: the others still run
    }
  }
  cleanups.clear();
}

/** Registers a synchronous last-resort cleanup; the returned function unregisters it. */
export function onAbnormalExit(cleanup: () => void): () => void {
  if (!installed) {
    installed = true;
    process.once('exit', runAll);
    for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
      process.once(signal, () => {
        runAll();
        process.kill(process.pid, signal);
      });
    }
  }
  cleanups.add(cleanup);
  return () => {
    cleanups.delete(cleanup);
  };
}
