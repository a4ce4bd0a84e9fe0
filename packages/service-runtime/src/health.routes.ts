import type { Router } from 'express';
import { INTERNAL_HEALTH_PATH } from '@svc/contracts/gateway';
import { AppError } from '@svc/errors';
import type { OutboxBacklog } from '@svc/messaging';
import { authOf, type ReadinessReport } from '@svc/service-kit';

/**
 * The internal operator endpoint behind the gateway's `/admin/health`: this service's readiness
 * (the checks `/readyz` runs) and its outbox backlog. Operator tokens only.
 */
export function healthRoutes(
  router: Router,
  options: { readiness(): Promise<ReadinessReport>; backlog(): Promise<OutboxBacklog> },
): void {
  router.get(INTERNAL_HEALTH_PATH, async (req, res) => {
    if (authOf(req).role !== 'operator') {
      throw new AppError('FORBIDDEN', 'Service health is for operators (the gateway /admin API)');
    }
    // A database that is down or hanging makes the service unready; its backlog is then unknown (null).
    const [report, backlog] = await Promise.all([options.readiness(), withinBudget(options.backlog())]);
    res.json({
      data: {
        ready: report.ready,
        checks: report.checks,
        outboxBacklog: backlog?.count ?? null,
        oldestUnsentSeconds: backlog?.oldestUnsentSeconds ?? null,
      },
    });
  });
}

// As a readiness check's: the answer must come well within the gateway's fan-out budget.
const BACKLOG_TIMEOUT_MS = 1000;

async function withinBudget(backlog: Promise<OutboxBacklog>): Promise<OutboxBacklog | undefined> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), BACKLOG_TIMEOUT_MS);
  });
  try {
    return await Promise.race([backlog.catch(() => undefined), timeout]);
  } finally {
    clearTimeout(timer);
  }
}
