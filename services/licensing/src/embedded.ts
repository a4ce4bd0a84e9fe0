import { loadConfig } from '@svc/config';
import { createLogger } from '@svc/logger';
import { embeddedEnv, embeddedService } from '@svc/service-runtime';
import { licensingConfigSchema } from './config';
import { startLicensing } from './start';

/** Licensing inside the embedded default: PGlite under DATA_DIR, the in-process bus, a loopback port, the registry and billing at their loopback URLs. */
export const licensingEmbedded = embeddedService({
  name: 'licensing',
  urlVariable: 'LICENSING_URL',
  start: (deps, db) =>
    startLicensing(
      loadConfig(licensingConfigSchema, {
        ...embeddedEnv(deps),
        REGISTRY_URL: deps.serviceUrls.REGISTRY_URL,
        LICENSE_EXPIRY_INTERVAL_MS: process.env.LICENSE_EXPIRY_INTERVAL_MS,
      }),
      // Billing starts after licensing: its URL is read when a license's detail first asks.
      {
        db,
        bus: deps.bus,
        logger: createLogger('licensing'),
        billingUrl: () => deps.serviceUrls.BILLING_URL,
      },
    ),
});
