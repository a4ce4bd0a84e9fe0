import path from 'node:path';
import { loadConfig } from '@svc/config';
import { createLogger, type Logger } from '@svc/logger';
import type { MessageBus } from '@svc/messaging';
import { createDatabase } from '@svc/storage';
import { billingConfigSchema } from './config';
import { startBilling } from './start';

/** What the embedded launcher hands a service (structurally services/embedded's EmbeddedDeps). */
export interface BillingEmbeddedDeps {
  dataDir: string;
  bus: MessageBus;
  logger: Logger;
  environment: 'sandbox' | 'production';
  internalJwtSecret: string;
  allowPrivateFetch: boolean;
}

/** Billing inside the embedded default: PGlite under DATA_DIR, the in-process bus, a loopback port. */
export const billingEmbedded = {
  urlVariable: 'BILLING_URL',
  async start(deps: BillingEmbeddedDeps): Promise<{ url: string; stop(): Promise<void> }> {
    const db = await createDatabase({ url: `pglite://${path.join(deps.dataDir, 'billing')}` });
    const config = loadConfig(billingConfigSchema, {
      PORT: '0',
      HOST: '127.0.0.1',
      SVC_ENVIRONMENT: deps.environment,
      INTERNAL_JWT_SECRET: deps.internalJwtSecret,
    });
    try {
      const running = await startBilling(config, { db, bus: deps.bus, logger: createLogger('billing') });
      return {
        url: running.url,
        stop: async () => {
          await running.stop();
          await db.close();
        },
      };
    } catch (err) {
      await db.close();
      throw err;
    }
  },
};
