import { loadConfig } from '@svc/config';
import { createLogger } from '@svc/logger';
import { embeddedEnv, embeddedService } from '@svc/service-runtime';
import { enforcementConfigSchema } from './config';
import { startEnforcement } from './start';

/** Enforcement inside the embedded default: PGlite under DATA_DIR, the in-process bus, detection at its loopback URL. */
export const enforcementEmbedded = embeddedService({
  name: 'enforcement',
  urlVariable: 'ENFORCEMENT_URL',
  start: (deps, db) =>
    startEnforcement(
      loadConfig(enforcementConfigSchema, {
        ...embeddedEnv(deps),
        DETECTION_URL: deps.serviceUrls.DETECTION_URL,
        TIMELINE_INTERVAL_MS: process.env.TIMELINE_INTERVAL_MS,
      }),
      { db, bus: deps.bus, logger: createLogger('enforcement') },
    ),
});
