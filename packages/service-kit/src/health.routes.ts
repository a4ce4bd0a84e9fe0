import type { Express, Request, Response } from 'express';
import type { Registry } from 'prom-client';
import { gaugeOn } from './metric-registration';

export interface ReadinessCheck {
  name: string;
  check: () => Promise<void>;
  /**
   * Reported in the body but never makes the service unready: a dependency whose absence the
   * service rides out (the broker, while the outbox buffers), so that its outage does not take
   * every replica out of the load balancer.
   */
  informational?: boolean;
}

// A probe must answer well within the orchestrator's own probe timeout, even when a dependency hangs.
const CHECK_TIMEOUT_MS = 1000;

/**
 * Mounts `/healthz` (alive), `/readyz` (every readiness check that is not informational passes
 * within 1 s, and not stopping) and, unless it has a port of its own (`serveMetrics: false`), `/metrics`.
 */
export function mountHealthRoutes(
  app: Express,
  options: {
    readiness: ReadinessCheck[];
    registry: Registry;
    isNotReady: () => boolean;
    serveMetrics: boolean;
  },
): void {
  // What the last /readyz said (the orchestrator asks every few seconds): alerts need no kube-state-metrics.
  const readyGauge = gaugeOn(options.registry, {
    name: 'service_ready',
    help: 'What the last /readyz answered: 1 ready, 0 not ready (a dependency down, or shutting down).',
  });
  app.get('/healthz', (_req: Request, res: Response) => {
    res.status(200).json({ status: 'ok' });
  });

  app.get('/readyz', async (_req: Request, res: Response) => {
    const report = await evaluateReadiness(options.readiness, options.isNotReady());
    readyGauge.set(report.ready ? 1 : 0);
    const checks = Object.fromEntries(report.checks.map((check) => [check.name, check.result]));
    if (report.stopping) {
      res.status(503).json({ status: 'not_ready', reason: 'shutting down', checks });
      return;
    }
    res.status(report.ready ? 200 : 503).json({ status: report.ready ? 'ready' : 'not_ready', checks });
  });

  if (!options.serveMetrics) return;
  app.get('/metrics', async (_req: Request, res: Response) => {
    const text = await options.registry.metrics();
    res.status(200).type(options.registry.contentType).send(text);
  });
}

/** One check as `/readyz` reports it. */
export interface ReadinessOutcome {
  name: string;
  /** `ok`, `degraded: <reason>` (an informational check that failed) or the reason it failed. */
  result: string;
  /** False only for a check that failed and is not informational. */
  passed: boolean;
}

/** What `/readyz` answers, as data: the operator's health view reads it too. */
export interface ReadinessReport {
  ready: boolean;
  /** Shutting down: not ready, and the checks are not run. */
  stopping: boolean;
  checks: ReadinessOutcome[];
}

/** Runs the readiness checks the way `/readyz` does (each within 1 s, informational ones never failing it). */
export async function evaluateReadiness(
  readiness: readonly ReadinessCheck[],
  stopping: boolean,
): Promise<ReadinessReport> {
  if (stopping) return { ready: false, stopping, checks: [] };
  const outcomes = await Promise.all(readiness.map(runCheck));
  const checks = outcomes.map((outcome, index): ReadinessOutcome => {
    const check = readiness[index];
    const name = check?.name ?? String(index);
    const informational = check?.informational === true;
    if (outcome === undefined) return { name, result: 'ok', passed: true };
    return informational
      ? { name, result: `degraded: ${outcome}`, passed: true }
      : { name, result: outcome, passed: false };
  });
  return { ready: checks.every((check) => check.passed), stopping, checks };
}

/** Runs one check; resolves to undefined when it passed, else to the reason it failed. */
async function runCheck(readiness: ReadinessCheck): Promise<string | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve(`timed out after ${CHECK_TIMEOUT_MS} ms`), CHECK_TIMEOUT_MS);
  });
  try {
    return await Promise.race([
      // Through a then() so that a check throwing synchronously counts as failed, not as a 500.
      Promise.resolve()
        .then(() => readiness.check())
        .then(
          () => undefined,
          (err: unknown) => (err instanceof Error ? err.message || err.name : String(err)),
        ),
      timeout,
    ]);
  } finally {
    clearTimeout(timer);
  }
}
