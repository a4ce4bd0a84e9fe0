import path from 'node:path';
import { loadConfig } from '@svc/config';
import { createLogger, type Logger } from '@svc/logger';
import type { MessageBus } from '@svc/messaging';
import { createDatabase } from '@svc/storage';
import { licensingConfigSchema } from './config';
import { startLicensing } from './start';

/** What the embedded launcher hands a service (structurally services/embedded's EmbeddedDeps). */
export interface LicensingEmbeddedDeps {
  dataDir: string;
  bus: MessageBus;
  logger: Logger;
  environment: 'sandbox' | 'production';
  internalJwtSecret: string;
  allowPrivateFetch: boolean;
}

/** Licensing inside the embedded default: PGlite under DATA_DIR, the in-process bus, a loopback port. */
export const licensingEmbedded = {
  urlVariable: 'LICENSING_URL',
  async start(deps: LicensingEmbeddedDeps): Promise<{ url: string; stop(): Promise<void> }> {
    const db = await createDatabase({ url: `pglite://${path.join(deps.dataDir, 'licensing')}` });
    const config = loadConfig(licensingConfigSchema, {
      PORT: '0',
      HOST: '127.0.0.1',
      SVC_ENVIRONMENT: deps.environment,
      INTERNAL_JWT_SECRET: deps.internalJwtSecret,
      LICENSE_EXPIRY_INTERVAL_MS: process.env.LICENSE_EXPIRY_INTERVAL_MS,
    });
    try {
      const running = await startLicensing(config, { db, bus: deps.bus, logger: createLogger('licensing') });
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
