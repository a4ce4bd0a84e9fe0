import { loadConfig } from '@svc/config';
import { createLogger } from '@svc/logger';
import { embeddedEnv, embeddedService } from '@svc/service-runtime';
import { billingConfigSchema } from './config';
import { startBilling } from './start';

/** Billing inside the embedded default: PGlite under DATA_DIR, the in-process bus, a loopback port, licensing at its loopback URL. */
export const billingEmbedded = embeddedService({
  name: 'billing',
  urlVariable: 'BILLING_URL',
  start: (deps, db) =>
    startBilling(
      loadConfig(billingConfigSchema, {
        ...embeddedEnv(deps),
        LICENSING_URL: deps.serviceUrls.LICENSING_URL,
      }),
      {
        db,
        bus: deps.bus,
        logger: createLogger('billing'),
      },
    ),
});
