import path from 'node:path';
import type { Logger } from '@svc/logger';
import type { MessageBus } from '@svc/messaging';
import { createDatabase, type Database } from '@svc/storage';

/** What the embedded launcher hands each service (services/embedded's EmbeddedDeps). */
export interface EmbeddedDeps {
  dataDir: string;
  bus: MessageBus;
  logger: Logger;
  environment: 'sandbox' | 'production';
  internalJwtSecret: string;
  allowPrivateFetch: boolean;
  /** `<NAME>_URL` of every service started before this one (enforcement reaches detection). */
  serviceUrls?: Record<string, string>;
  /**
   * Settings of the embedded default's own config that it passes on to every service (each
   * service's schema picks what it reads and validates it), e.g. TIMELINE_INTERVAL_MS.
   */
  env?: Readonly<Record<string, string | undefined>>;
}

/** A service the embedded default can start. */
export interface EmbeddedService {
  urlVariable: string;
  start(deps: EmbeddedDeps): Promise<{ url: string; stop(): Promise<void> }>;
}

/** The environment of a service inside the embedded process: loopback, port 0, shared secret. */
export function embeddedEnv(deps: EmbeddedDeps): Record<string, string> {
  return {
    PORT: '0',
    HOST: '127.0.0.1',
    SVC_ENVIRONMENT: deps.environment,
    INTERNAL_JWT_SECRET: deps.internalJwtSecret,
    SVC_ALLOW_PRIVATE_FETCH: String(deps.allowPrivateFetch),
  };
}

/**
 * A service inside the embedded default: its own PGlite files under DATA_DIR/<name>, the shared
 * in-process bus, a loopback port. `start` receives the opened database; it is closed on stop.
 */
export function embeddedService(options: {
  name: string;
  urlVariable: string;
  start(deps: EmbeddedDeps, db: Database): Promise<{ url: string; stop(): Promise<void> }>;
}): EmbeddedService {
  return {
    urlVariable: options.urlVariable,
    async start(deps) {
      const db = await createDatabase({ url: `pglite://${path.join(deps.dataDir, options.name)}` });
      try {
        const running = await options.start(deps, db);
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
}
