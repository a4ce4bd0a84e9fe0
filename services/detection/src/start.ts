import path from 'node:path';
import { appendToOutbox } from '@svc/messaging';
import {
  domainMigrations,
  periodicJob,
  startDomainService,
  type RunningDomainService,
  type StartOverrides,
} from '@svc/service-runtime';
import type { DetectionConfig } from './config';
import { IdentityRepository } from './data-access/identity.repository';
import { ImageFetcher } from './data-access/image-fetcher';
import { LicenseRepository } from './data-access/license.repository';
import { ReferenceImageRepository } from './data-access/reference-image.repository';
import { CatalogueSync } from './domain/catalogue-sync';
import { fingerprintDueReferenceImages } from './domain/fingerprint-reference-images.use-case';
import { IdentityCatalogue } from './domain/identity-catalogue';
import { IMAGE_MATCH_THRESHOLD } from './domain/image-matching';
import type { DetectionContext } from './domain/ports';
import { identityCheckRoutes } from './entry-points/http/identity-check.routes';
import { projectionSubscriptions } from './entry-points/messaging/projection.consumer';

export type { StartOverrides } from '@svc/service-runtime';

export interface RunningDetection extends RunningDomainService {
  catalogue: IdentityCatalogue;
  /** Reads the projection's latest changes into this replica's index. */
  refreshIndex(): Promise<number>;
  /** One pass of the reference-image job. */
  fingerprintReferenceImages(): Promise<void>;
}

/** Detection's migrations (after the outbox and inbox tables of @svc/messaging). */
export function detectionMigrations() {
  return domainMigrations('detection', path.resolve(__dirname));
}

/** Wires the projection, the in-memory index, the image fetcher, the jobs and the routes. */
export async function startDetection(
  config: DetectionConfig,
  overrides: StartOverrides = {},
): Promise<RunningDetection> {
  const catalogue = new IdentityCatalogue(IMAGE_MATCH_THRESHOLD);
  let sync: CatalogueSync | undefined;
  let referenceJob: { runOnce(): Promise<void> } | undefined;
  const running = await startDomainService({
    name: 'detection',
    config,
    overrides,
    migrations: detectionMigrations(),
    wire: async ({ db, clock, logger, kickRelay }) => {
      const identities = new IdentityRepository();
      const licenses = new LicenseRepository();
      const images = new ImageFetcher({ allowPrivateFetch: config.SVC_ALLOW_PRIVATE_FETCH, clock });
      const indexSync = new CatalogueSync(db, identities, catalogue);
      sync = indexSync;
      const started = performance.now();
      const loaded = await indexSync.refresh();
      logger.info(
        { identities: catalogue.size, changes: loaded, ms: Math.round(performance.now() - started) },
        'identity index loaded',
      );
      const outbox = appendToOutbox;
      const referenceImages = new ReferenceImageRepository();
      const imageJob = periodicJob({
        name: 'reference-images',
        intervalMs: config.REFERENCE_IMAGE_INTERVAL_MS,
        logger,
        run: async () => {
          // Keep going while there is due work; publish and re-read the index when something changed.
          for (;;) {
            const pass = await fingerprintDueReferenceImages({
              db,
              images,
              identities,
              referenceImages,
              clock,
              outbox,
            });
            if (pass.changed) {
              kickRelay();
              await indexSync.refresh();
            }
            if (pass.handled === 0) return;
          }
        },
      });
      referenceJob = imageJob;
      const syncJob = periodicJob({
        name: 'index-sync',
        intervalMs: config.INDEX_SYNC_INTERVAL_MS,
        logger,
        run: () => indexSync.refresh(),
      });
      const ctx: DetectionContext = {
        catalogue,
        images,
        licenses,
        db,
        clock,
        refresh: async () => {
          await indexSync.refresh();
        },
      };
      return {
        subscriptions: projectionSubscriptions({
          db,
          identities,
          licenses,
          clock,
          logger,
          outbox,
          projected: async () => {
            kickRelay();
            await indexSync.refresh();
            // New reference images are fetched now rather than at the next tick.
            void imageJob
              .runOnce()
              .catch((err: unknown) => logger.error({ err }, 'reference images pass failed'));
          },
        }),
        background: [syncJob, imageJob],
        routes: (router) => identityCheckRoutes(router, ctx),
      };
    },
  });
  return {
    ...running,
    catalogue,
    refreshIndex: () => (sync ? sync.refresh() : Promise.resolve(0)),
    fingerprintReferenceImages: () => (referenceJob ? referenceJob.runOnce() : Promise.resolve()),
  };
}
