import path from 'node:path';
import { loadConfig } from '@svc/config';
import type { Logger } from '@svc/logger';
import type { MessageBus } from '@svc/messaging';
import { createDatabase } from '@svc/storage';
import { webhookDispatcherConfigSchema } from './config';
import { startWebhookDispatcher } from './start';

/** What the embedded launcher gives a service (the shape of services/embedded's EmbeddedDeps). */
export interface EmbeddedDeps {
  dataDir: string;
  bus: MessageBus;
  logger: Logger;
  environment: 'sandbox' | 'production';
  internalJwtSecret: string;
  allowPrivateFetch: boolean;
}

/** The shape of services/embedded's EmbeddedService. */
export interface EmbeddedService {
  urlVariable: string;
  start(deps: EmbeddedDeps): Promise<{ url: string; stop(): Promise<void> }>;
}

/** The dispatcher inside the embedded default: PGlite under DATA_DIR, the shared in-process bus, port 0. */
export const webhookDispatcherEmbedded: EmbeddedService = {
  urlVariable: 'WEBHOOK_DISPATCHER_URL',
  async start(deps) {
    const url = `pglite://${path.join(deps.dataDir, 'webhook-dispatcher')}`;
    const config = loadConfig(webhookDispatcherConfigSchema, {
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: url,
      SVC_ENVIRONMENT: deps.environment,
      INTERNAL_JWT_SECRET: deps.internalJwtSecret,
      SVC_ALLOW_PRIVATE_FETCH: String(deps.allowPrivateFetch),
    });
    const db = await createDatabase({ url });
    const running = await startWebhookDispatcher(config, {
      db,
      bus: deps.bus,
      logger: deps.logger.child({ service: 'webhook-dispatcher' }),
    });
    return {
      url: running.url,
      stop: async () => {
        await running.stop();
        await db.close();
      },
    };
  },
};
