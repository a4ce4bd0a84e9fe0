import path from 'node:path';
import { loadConfig } from '@svc/config';
import { createLogger, type Logger } from '@svc/logger';
import type { MessageBus } from '@svc/messaging';
import { createDatabase } from '@svc/storage';
import { registryConfigSchema } from './config';
import { startRegistry } from './start';

/** What the embedded launcher hands a service (structurally services/embedded's EmbeddedDeps). */
export interface RegistryEmbeddedDeps {
  dataDir: string;
  bus: MessageBus;
  logger: Logger;
  environment: 'sandbox' | 'production';
  internalJwtSecret: string;
  allowPrivateFetch: boolean;
}

/** The registry inside the embedded default: PGlite under DATA_DIR, the in-process bus, a loopback port. */
export const registryEmbedded = {
  urlVariable: 'REGISTRY_URL',
  async start(deps: RegistryEmbeddedDeps): Promise<{ url: string; stop(): Promise<void> }> {
    const db = await createDatabase({ url: `pglite://${path.join(deps.dataDir, 'registry')}` });
    const config = loadConfig(registryConfigSchema, {
      PORT: '0',
      HOST: '127.0.0.1',
      SVC_ENVIRONMENT: deps.environment,
      INTERNAL_JWT_SECRET: deps.internalJwtSecret,
      VERIFICATION_BASE_URL: process.env.VERIFICATION_BASE_URL,
    });
    try {
      const running = await startRegistry(config, { db, bus: deps.bus, logger: createLogger('registry') });
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
