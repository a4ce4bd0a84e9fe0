import { mkdtempSync, rmSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createLogger } from '@svc/logger';
import { InProcessMessageBus } from '@svc/messaging';
import type { EmbeddedService } from '@svc/service-runtime';
import type { JsonReply } from './http';
import { internalClient, platformClaims } from './service-harness';

export interface EmbeddedUnderTest {
  url: string;
  bus: InProcessMessageBus;
  /** Types of the events of the service's prefix seen on the bus, in order. */
  seen: string[];
  /** Calls as platform `plat_e` with a sandbox internal token. */
  call(method: string, path: string, body?: unknown): Promise<JsonReply>;
  /** Stops the service and the bus and removes the data directory. */
  stop(): Promise<void>;
}

/**
 * Starts a service the way the embedded default does (PGlite files in a temporary directory, the
 * in-process bus, a loopback port), recording `<prefix>.#` events.
 */
export async function startEmbeddedUnderTest(
  service: EmbeddedService,
  options: { prefix: string; jwtSecret: string; serviceUrls?: Record<string, string> },
): Promise<EmbeddedUnderTest> {
  const dataDir = mkdtempSync(path.join(os.tmpdir(), `${options.prefix}-embedded-`));
  const logger = createLogger('test', { level: 'silent' });
  const bus = new InProcessMessageBus({ logger });
  const seen: string[] = [];
  await bus.subscribe({
    queue: 'test.seen',
    patterns: [`${options.prefix}.#`],
    handler: async (e) => void seen.push(e.type),
  });
  const running = await service.start({
    dataDir,
    bus,
    logger,
    environment: 'sandbox',
    internalJwtSecret: options.jwtSecret,
    allowPrivateFetch: false,
    serviceUrls: options.serviceUrls ?? {},
  });
  const client = internalClient(
    running.url,
    options.jwtSecret,
    platformClaims({ platformId: 'plat_e', keyId: 'key_e', plan: 'sandbox' }),
  );
  return {
    url: running.url,
    bus,
    seen,
    call: client.call,
    stop: async () => {
      await running.stop();
      await bus.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}
