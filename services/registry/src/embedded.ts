import { loadConfig } from '@svc/config';
import { createLogger } from '@svc/logger';
import { embeddedEnv, embeddedService } from '@svc/service-runtime';
import { registryConfigSchema } from './config';
import { startRegistry } from './start';

/** The registry inside the embedded default: PGlite under DATA_DIR, the in-process bus, a loopback port. */
export const registryEmbedded = embeddedService({
  name: 'registry',
  urlVariable: 'REGISTRY_URL',
  start: (deps, db) =>
    startRegistry(
      loadConfig(registryConfigSchema, {
        ...embeddedEnv(deps),
        VERIFICATION_BASE_URL: process.env.VERIFICATION_BASE_URL,
      }),
      { db, bus: deps.bus, logger: createLogger('registry') },
    ),
});
