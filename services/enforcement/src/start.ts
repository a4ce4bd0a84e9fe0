import path from 'node:path';
import { newId } from '@svc/ids';
import { appendToOutbox } from '@svc/messaging';
import { createServiceRegistry } from '@svc/service-kit';
import {
  defineService,
  domainMigrations,
  startDomainService,
  type RunningDomainService,
  type StartOverrides,
} from '@svc/service-runtime';
import { enforcementConfigSchema, type EnforcementConfig } from './config';
import { AppealRepository } from './data-access/appeal.repository';
import { AvatarRepository } from './data-access/avatar.repository';
import { BoxScanRepository } from './data-access/box-scan.repository';
import { GracePeriodRepository } from './data-access/grace-period.repository';
import { BoxRepository, LicenseProjectionRepository } from './data-access/projection.repository';
import { SandboxClockRepository } from '@svc/clock';
import { TimelineRepository } from './data-access/timeline.repository';
import { ViolationRepository } from './data-access/violation.repository';
import { HttpDetectionClient, type DetectionPort } from './domain/detection.client';
import { retryPendingEvaluations } from './domain/evaluate-avatars.use-case';
import { fireDueSteps, type SchedulerRun } from './domain/fire-due-steps.use-case';
import type { EnforcementContext } from './domain/ports';
import { runBoxScans } from './domain/scan-new-box.use-case';
import { appealRoutes } from './entry-points/http/appeals.routes';
import { avatarRoutes } from './entry-points/http/avatars.routes';
import { gracePeriodRoutes } from './entry-points/http/grace-periods.routes';
import { boxScanRoutes } from './entry-points/http/box-scans.routes';
import { obligationsRoutes } from './entry-points/http/obligations.routes';
import { testHelperRoutes } from './entry-points/http/test-helpers.routes';
import { violationRoutes } from './entry-points/http/violations.routes';
import { enforcementJobs, type EnforcementJobs } from './entry-points/jobs/enforcement.jobs';
import { enforcementSubscriptions } from './entry-points/messaging/enforcement.consumers';

export type { StartOverrides } from '@svc/service-runtime';

/** What a caller (tests, the embedded default) may hand in besides the common overrides. */
export interface EnforcementOverrides extends StartOverrides {
  /** Detection's evaluation (tests hand in a fake); default: detection over HTTP at DETECTION_URL. */
  detection?: DetectionPort;
}

export interface RunningEnforcement extends RunningDomainService {
  /** One scheduler pass now (tests move a ManualClock, then call this). */
  fireDueSteps(): Promise<SchedulerRun>;
  /** One pass of the evaluation retry job now, beside any other (as another replica's would run). */
  retryEvaluations(): Promise<number>;
  /**
   * The evaluation job's own pass in progress (one a report kicked), or one now: what it applied.
   * Tests wait on it so that a pass a report kicked is over before they move the clock.
   */
  evaluationJobPass(): Promise<number>;
  /** One pass of the box scan worker now. */
  runBoxScans(): Promise<number>;
}

/** Enforcement's migrations (after the outbox and inbox tables of @svc/messaging). */
export function enforcementMigrations() {
  return domainMigrations('enforcement', path.resolve(__dirname));
}

/** Wires enforcement's stores, detection client, consumers, jobs and routes into the common start sequence. */
export async function startEnforcement(
  config: EnforcementConfig,
  overrides: EnforcementOverrides = {},
): Promise<RunningEnforcement> {
  let context: EnforcementContext | undefined;
  let evaluationJob: EnforcementJobs['evaluations'] | undefined;
  // Created here so that the detection client's breaker shows on enforcement's own /metrics.
  const registry = overrides.registry ?? createServiceRegistry();
  const detection =
    overrides.detection ??
    new HttpDetectionClient({
      baseUrl: config.DETECTION_URL,
      internalJwtSecret: config.INTERNAL_JWT_SECRET,
      environment: config.SVC_ENVIRONMENT,
      timeoutMs: config.DETECTION_TIMEOUT_MS,
      registry,
      ...(overrides.logger === undefined ? {} : { logger: overrides.logger }),
    });
  const running = await startDomainService({
    name: 'enforcement',
    config,
    overrides: { ...overrides, registry },
    migrations: enforcementMigrations(),
    wire: ({ db, clock, logger, kickRelay }) => {
      // Called only after wiring, once `jobs` exists.
      const kick = (job: 'evaluations' | 'scans') => {
        jobs[job].runOnce().catch((err: unknown) => logger.error({ err, job }, 'job pass failed'));
      };
      const ctx: EnforcementContext = {
        db,
        avatars: new AvatarRepository(),
        violations: new ViolationRepository(),
        gracePeriods: new GracePeriodRepository(),
        timeline: new TimelineRepository(),
        appeals: new AppealRepository(),
        boxes: new BoxRepository(),
        licenses: new LicenseProjectionRepository(),
        clocks: new SandboxClockRepository(),
        scans: new BoxScanRepository(),
        detection,
        clock,
        environment: config.SVC_ENVIRONMENT,
        outbox: appendToOutbox,
        eventsCommitted: kickRelay,
        workWaiting: () => kick('evaluations'),
        newId,
        logger,
      };
      context = ctx;
      const jobs = enforcementJobs(
        ctx,
        {
          timelineMs: config.TIMELINE_INTERVAL_MS,
          evaluationRetryMs: config.EVALUATION_RETRY_INTERVAL_MS,
          boxScanMs: config.BOX_SCAN_INTERVAL_MS,
        },
        logger,
      );
      evaluationJob = jobs.evaluations;
      return {
        subscriptions: enforcementSubscriptions(db, ctx, () => kick('scans')),
        background: [
          jobs.scheduler,
          jobs.evaluations,
          jobs.scans,
          { name: 'detection-client', start: () => undefined, stop: () => detection.close() },
        ],
        routes: (router) => {
          avatarRoutes(router, ctx);
          violationRoutes(router, ctx);
          gracePeriodRoutes(router, ctx);
          appealRoutes(router, ctx);
          testHelperRoutes(router, ctx);
          obligationsRoutes(router, ctx);
          boxScanRoutes(router, ctx);
        },
      };
    },
  });
  const ctx = context;
  const job = evaluationJob;
  if (ctx === undefined || job === undefined)
    throw new Error('unreachable: the context is made while wiring');
  return {
    ...running,
    fireDueSteps: () => fireDueSteps(ctx),
    retryEvaluations: () => retryPendingEvaluations(ctx),
    evaluationJobPass: () => job.runOnce(),
    runBoxScans: () => runBoxScans(ctx),
  };
}

/** Enforcement's start-up, declared once: main.ts, the embedded default and the test harness start it from here. */
export const enforcementService = defineService({
  name: 'enforcement',
  urlVariable: 'ENFORCEMENT_URL',
  configSchema: enforcementConfigSchema,
  start: startEnforcement,
  // Detection starts before enforcement: its loopback URL is known.
  embedded: (deps) => ({ env: { DETECTION_URL: deps.serviceUrls?.DETECTION_URL } }),
});
