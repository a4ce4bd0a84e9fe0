import { loadConfig } from '@svc/config';
import { createLogger } from '@svc/logger';
import { embeddedEnv, embeddedService } from '@svc/service-runtime';
import { detectionConfigSchema } from './config';
import { startDetection } from './start';

/** Detection inside the embedded default: PGlite under DATA_DIR, the in-process bus, a loopback port. */
export const detectionEmbedded = embeddedService({
  name: 'detection',
  urlVariable: 'DETECTION_URL',
  start: (deps, db) =>
    startDetection(loadConfig(detectionConfigSchema, embeddedEnv(deps)), {
      db,
      bus: deps.bus,
      logger: createLogger('detection'),
    }),
});
