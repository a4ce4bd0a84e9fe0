import path from 'node:path';
import { newId } from '@svc/ids';
import { appendToOutbox, currentEntityVersion } from '@svc/messaging';
import {
  defineService,
  domainMigrations,
  startDomainService,
  type RunningDomainService,
  type StartOverrides,
} from '@svc/service-runtime';
import { registryConfigSchema, type RegistryConfig } from './config';
import { BoxStatsRepository } from './data-access/box-stats.repository';
import { BoxRepository } from './data-access/box.repository';
import { ClaimRepository } from './data-access/claim.repository';
import { HttpDetectionClient } from './domain/detection.client';
import type { RegistryContext } from './domain/ports';
import { boxRoutes } from './entry-points/http/boxes.routes';
import { claimVerificationRoutes } from './entry-points/http/claim-verification.routes';
import { claimRoutes } from './entry-points/http/claims.routes';
import { internalSnapshotRoutes } from './entry-points/http/internal-snapshots.routes';
import { boxStatsSubscriptions } from './entry-points/messaging/box-stats.consumer';
import { faceEnrolmentSubscription } from './entry-points/messaging/face-enrolment.consumer';
import { logEntriesSubscription } from './entry-points/messaging/log-entries.consumer';

export type { StartOverrides } from '@svc/service-runtime';
export type RunningRegistry = RunningDomainService;

/** The registry's migrations (after the outbox and inbox tables of @svc/messaging). */
export function registryMigrations() {
  return domainMigrations('registry', path.resolve(__dirname));
}

/** Wires the registry's stores, consumers and routes into the common start sequence. */
export function startRegistry(
  config: RegistryConfig,
  overrides: StartOverrides = {},
): Promise<RunningRegistry> {
  return startDomainService({
    name: 'registry',
    config,
    overrides,
    migrations: registryMigrations(),
    wire: ({ db, clock, kickRelay, logger, registry }) => {
      const stats = new BoxStatsRepository();
      const detection = new HttpDetectionClient({
        baseUrl: config.DETECTION_URL,
        internalJwtSecret: config.INTERNAL_JWT_SECRET,
        environment: config.SVC_ENVIRONMENT,
        timeoutMs: config.DETECTION_TIMEOUT_MS,
        registry,
        logger,
      });
      const ctx: RegistryContext = {
        db,
        claims: new ClaimRepository(),
        boxes: new BoxRepository(),
        stats,
        clock,
        outbox: appendToOutbox,
        eventsCommitted: kickRelay,
        entityVersion: currentEntityVersion,
        verificationBaseUrl: config.VERIFICATION_BASE_URL,
        newId,
        faces: detection,
        logger,
      };
      return {
        subscriptions: [
          ...boxStatsSubscriptions({ db, stats, clock }),
          faceEnrolmentSubscription({ db, claims: ctx.claims, clock }),
          logEntriesSubscription({ db, boxes: ctx.boxes, clock }),
        ],
        routes: (router) => {
          claimRoutes(router, ctx);
          claimVerificationRoutes(router, ctx);
          boxRoutes(router, ctx);
          internalSnapshotRoutes(router, ctx);
        },
        background: [{ name: 'detection-client', start: () => undefined, stop: () => detection.close() }],
      };
    },
  });
}

/** The registry's start-up, declared once: main.ts, the embedded default and the test harness start it from here. */
export const registryService = defineService({
  name: 'registry',
  urlVariable: 'REGISTRY_URL',
  configSchema: registryConfigSchema,
  start: startRegistry,
  embedded: (deps) => ({ env: { DETECTION_URL: deps.serviceUrls?.DETECTION_URL } }),
});
