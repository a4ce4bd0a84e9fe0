import type { Logger } from '@svc/logger';
import { periodicJob, type PeriodicJob } from '@svc/service-runtime';
import { retryPendingEvaluations } from '../../domain/evaluate-avatars.use-case';
import { fireDueSteps } from '../../domain/fire-due-steps.use-case';
import type { EnforcementContext } from '../../domain/ports';
import { runBoxScans } from '../../domain/scan-new-box.use-case';

export interface EnforcementJobs {
  /** The durable timeline's scheduler (ADR 0008). */
  scheduler: PeriodicJob;
  /** Avatars whose evaluation is pending (detection was down) are evaluated again: how many were applied. */
  evaluations: PeriodicJob<number>;
  /** New boxes' initial scans, page by page. */
  scans: PeriodicJob;
}

/** The background jobs; each runs one pass at a time and may also be started at once (`runOnce`). */
export function enforcementJobs(
  ctx: EnforcementContext,
  intervals: { timelineMs: number; evaluationRetryMs: number; boxScanMs: number },
  logger: Logger,
): EnforcementJobs {
  return {
    scheduler: periodicJob({
      name: 'timeline-scheduler',
      intervalMs: intervals.timelineMs,
      logger,
      run: () => fireDueSteps(ctx),
    }),
    evaluations: periodicJob({
      name: 'avatar-evaluation-retry',
      intervalMs: intervals.evaluationRetryMs,
      logger,
      run: () => retryPendingEvaluations(ctx),
    }),
    scans: periodicJob({
      name: 'box-scan',
      intervalMs: intervals.boxScanMs,
      logger,
      run: () => runBoxScans(ctx),
    }),
  };
}
