import os from 'node:os';
import path from 'node:path';
import { createFaceExaminer } from '@svc/face-engine';
import { appendToOutbox } from '@svc/messaging';
import {
  defineService,
  domainMigrations,
  periodicJob,
  startDomainService,
  type RunningDomainService,
  type StartOverrides,
} from '@svc/service-runtime';
import { detectionConfigSchema, type DetectionConfig } from './config';
import { IdentityRepository } from './data-access/identity.repository';
import { ImageFetcher } from './data-access/image-fetcher';
import { LicenseRepository } from './data-access/license.repository';
import { ReferenceImageRepository } from './data-access/reference-image.repository';
import { IndexSnapshotFile } from './data-access/index-snapshot.file';
import { CatalogueSync } from './domain/catalogue-sync';
import { PictureBudget } from './domain/face-matching/picture-budget';
import { fingerprintDueReferenceImages } from './domain/fingerprint-reference-images.use-case';
import { IdentityCatalogue } from './domain/identity-catalogue';
import { IMAGE_MATCH_THRESHOLD } from './domain/image-matching';
import {
  loadIdentityIndex,
  snapshotIdentityIndex,
  type IndexLoadReport,
} from './domain/load-identity-index.use-case';
import type { DetectionContext, IndexSnapshotStore } from './domain/ports';
import { faceEnrolmentRoutes } from './entry-points/http/face-enrolment.routes';
import { identityCheckRoutes } from './entry-points/http/identity-check.routes';
import { projectionSubscriptions } from './entry-points/messaging/projection.consumer';

export type { StartOverrides } from '@svc/service-runtime';

export interface RunningDetection extends RunningDomainService {
  catalogue: IdentityCatalogue;
  /** How the index was had on start (snapshot or rebuild, changes applied, time). */
  indexLoad: IndexLoadReport;
  /** Writes an index snapshot now (what the periodic job does); null when snapshots are off. */
  snapshotIndex(): Promise<{ changeSeq: number; bytes: number } | null>;
  /** Reads the projection's latest changes into this replica's index. */
  refreshIndex(): Promise<number>;
  /** One pass of the reference-image job. */
  fingerprintReferenceImages(): Promise<void>;
}

/** Detection's migrations (after the outbox and inbox tables of @svc/messaging). */
export function detectionMigrations() {
  return domainMigrations('detection', path.resolve(__dirname));
}

/** Progress lines while the index loads: at most one per this many milliseconds. */
const PROGRESS_EVERY_MS = 2_000;
/** A load that read more changes than this writes a fresh snapshot at once (a rebuild always does). */
const SNAPSHOT_AFTER_CHANGES = 10_000;

/** The snapshot store of the configuration, or null when snapshots are off. */
function snapshotStoreOf(config: DetectionConfig): IndexSnapshotStore | null {
  if (!config.INDEX_SNAPSHOTS) return null;
  return new IndexSnapshotFile(
    config.INDEX_SNAPSHOT_PATH ?? path.join(config.DATA_DIR, 'identity-index.snapshot'),
  );
}

/**
 * Wires the projection, the in-memory index, the image fetcher, the jobs and the routes. The port
 * opens before the index has loaded (`/readyz` answers 503 and checks 503 until it has, with
 * progress in the log); the returned promise resolves once it has.
 */
export async function startDetection(
  config: DetectionConfig,
  overrides: StartOverrides = {},
): Promise<RunningDetection> {
  const catalogue = new IdentityCatalogue(IMAGE_MATCH_THRESHOLD);
  const snapshots = snapshotStoreOf(config);
  let sync: CatalogueSync | undefined;
  let referenceJob: { runOnce(): Promise<void> } | undefined;
  let loading: Promise<IndexLoadReport> | undefined;
  let loaded = false;
  let snapshotTaken: (() => Promise<{ changeSeq: number; bytes: number } | null>) | undefined;
  let snapshotWriting: Promise<unknown> = Promise.resolve();
  let examinerOf: { close(): Promise<void> } | undefined;
  const running = await startDomainService({
    name: 'detection',
    config,
    overrides,
    migrations: detectionMigrations(),
    wire: async ({ db, clock, logger, kickRelay }) => {
      const identities = new IdentityRepository();
      const licenses = new LicenseRepository();
      // Faces are examined in worker threads, never on the event loop (ADR 0026); the budget shares
      // them among platforms, the reference-image job and avatar evaluations.
      // One core is left to the event loop (name checks, the index, HTTP): with every core examining
      // pictures, a name-only check's p99 more than doubled under picture load (bench/likeness).
      const threads =
        config.FACE_THREADS > 0 ? config.FACE_THREADS : Math.max(1, os.availableParallelism() - 1);
      const examiner = createFaceExaminer({
        threads,
        onWorkerError: (err) => logger.error({ err }, 'face worker failed (piscina starts another)'),
      });
      examinerOf = examiner;
      const budget = new PictureBudget({
        concurrency: threads,
        perPlatform: config.FACE_PLATFORM_BUDGET,
        now: () => clock.now(),
      });
      const images = new ImageFetcher({
        allowPrivateFetch: config.SVC_ALLOW_PRIVATE_FETCH,
        clock,
        faces: { examiner, budget },
        checkMaxPixels: config.CHECK_MAX_PIXELS,
      });
      const indexSync = new CatalogueSync(db, identities, catalogue);
      /** The projection the index reads (its id), known after the first refresh. */
      let projectionId: string | undefined;
      sync = indexSync;
      let lastSnapshotSeq = -1;
      const takeSnapshot = async (): Promise<{ changeSeq: number; bytes: number } | null> => {
        if (!snapshots) return null;
        const { projectionId } = await identities.projectionState(db);
        const started = performance.now();
        const written = await snapshotIdentityIndex({ catalogue, sync: indexSync, snapshots, projectionId });
        lastSnapshotSeq = written.changeSeq;
        logger.info(
          { ...written, path: snapshots.location, ms: Math.round(performance.now() - started) },
          'identity index snapshot written',
        );
        return written;
      };
      snapshotTaken = () => {
        const next = snapshotWriting.then(takeSnapshot, takeSnapshot);
        snapshotWriting = next.catch(() => undefined);
        return next;
      };
      const started = performance.now();
      let lastLog = started;
      logger.info({ snapshot: snapshots?.location ?? null }, 'identity index loading');
      loading = loadIdentityIndex({
        db,
        identities,
        catalogue,
        sync: indexSync,
        snapshots,
        progress: (applied) => {
          const now = performance.now();
          if (now - lastLog < PROGRESS_EVERY_MS) return;
          lastLog = now;
          const seconds = (now - started) / 1000;
          logger.info(
            { changes: applied, identities: catalogue.size, perSecond: Math.round(applied / seconds) },
            'identity index loading: progress',
          );
        },
      }).then((report) => {
        loaded = true;
        logger.info(report, 'identity index loaded');
        if (report.source === 'rebuild' || report.changesApplied > SNAPSHOT_AFTER_CHANGES) {
          void snapshotTaken?.().catch((err: unknown) => logger.error({ err }, 'index snapshot failed'));
        } else lastSnapshotSeq = report.snapshotChangeSeq ?? -1;
        return report;
      });
      // Handled by startDetection; this keeps an early failure from being reported as unhandled.
      loading.catch(() => undefined);
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
      const snapshotJob = periodicJob({
        name: 'index-snapshot',
        intervalMs: config.INDEX_SNAPSHOT_INTERVAL_MS,
        logger,
        run: async () => {
          if (!loaded || !snapshots || indexSync.position === lastSnapshotSeq) return;
          // The face index is retrained on load only (before the replica is ready): a rebuild at
          // 1M faces holds the event loop for half a minute (bench/likeness).
          await snapshotTaken?.();
        },
      });
      const ctx: DetectionContext = {
        catalogue,
        images,
        faces: referenceImages,
        faceTimeouts: { checkMs: config.FACE_CHECK_TIMEOUT_MS, batchMs: config.FACE_BATCH_TIMEOUT_MS },
        pictureFetchMs: { checkMs: config.PICTURE_FETCH_CHECK_MS, batchMs: config.PICTURE_FETCH_BATCH_MS },
        checkPictureBudgetMs: config.CHECK_PICTURE_BUDGET_MS,
        licenses,
        db,
        clock,
        refresh: async () => {
          await indexSync.refresh();
          projectionId ??= (await identities.projectionState(db)).projectionId;
        },
        knowledge: () =>
          projectionId === undefined ? undefined : { projection: projectionId, position: indexSync.position },
        indexReady: () => loaded,
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
        background: snapshots ? [syncJob, imageJob, snapshotJob] : [syncJob, imageJob],
        readiness: [
          {
            name: 'identity-index',
            check: async () => {
              if (!loaded) throw new Error('identity index loading');
            },
          },
        ],
        routes: (router) => {
          faceEnrolmentRoutes(router, { db, identities, referenceImages, catalogue });
          identityCheckRoutes(router, ctx);
        },
      };
    },
  });
  let indexLoad: IndexLoadReport;
  try {
    if (!loading) throw new Error('detection wiring did not start the index load');
    indexLoad = await loading;
  } catch (err) {
    await running.stop();
    await examinerOf?.close();
    throw err;
  }
  return {
    ...running,
    stop: async () => {
      await running.stop();
      await snapshotWriting;
      await examinerOf?.close();
    },
    catalogue,
    indexLoad,
    snapshotIndex: () => (snapshotTaken ? snapshotTaken() : Promise.resolve(null)),
    refreshIndex: () => (sync ? sync.refresh() : Promise.resolve(0)),
    fingerprintReferenceImages: () => (referenceJob ? referenceJob.runOnce() : Promise.resolve()),
  };
}

/** Detection's start-up, declared once: main.ts, the embedded default and the test harness start it from here. */
export const detectionService = defineService({
  name: 'detection',
  urlVariable: 'DETECTION_URL',
  configSchema: detectionConfigSchema,
  start: startDetection,
  // The index snapshot goes beside the embedded default's other files, not into the working directory.
  embedded: (deps) => ({ env: { DATA_DIR: path.join(deps.dataDir, 'detection-index') } }),
});
