import { loadConfig } from '@svc/config';
import { createLogger } from '@svc/logger';
import { embeddedEnv, embeddedService } from '@svc/service-runtime';
import { licensingConfigSchema } from './config';
import { startLicensing } from './start';

/** Licensing inside the embedded default: PGlite under DATA_DIR, the in-process bus, a loopback port. */
export const licensingEmbedded = embeddedService({
  name: 'licensing',
  urlVariable: 'LICENSING_URL',
  start: (deps, db) =>
    startLicensing(
      loadConfig(licensingConfigSchema, {
        ...embeddedEnv(deps),
        LICENSE_EXPIRY_INTERVAL_MS: process.env.LICENSE_EXPIRY_INTERVAL_MS,
      }),
      { db, bus: deps.bus, logger: createLogger('licensing') },
    ),
});
