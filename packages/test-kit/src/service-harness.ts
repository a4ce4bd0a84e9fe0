import { ManualClock } from '@svc/clock';
import type { EventEnvelope } from '@svc/contracts';
import { newId } from '@svc/ids';
import { createLogger, type Logger } from '@svc/logger';
import { InProcessMessageBus } from '@svc/messaging';
import { signInternalToken, type InternalClaims } from '@svc/service-kit';
import { requestJson, type JsonReply } from './http';
import { freshPostgresDatabase } from './infrastructure';

/** What every service's test harness starts from. */
export interface HarnessBase {
  databaseUrl: string;
  dropDatabase(): Promise<void>;
  bus: InProcessMessageBus;
  /** Every event of the service's own prefix delivered on the bus, in order. */
  delivered: EventEnvelope[];
  clock: ManualClock;
  logger: Logger;
  /** The environment a service under test starts with: port 0, loopback, its database, the secret. */
  env: Record<string, string>;
}

/**
 * A fresh PostgreSQL database, an in-process bus recording `<service>.#`, a manual clock at
 * `start` (default 2026-11-22T10:00:00Z) and a silent logger.
 */
export async function startHarnessBase(
  service: string,
  options: { jwtSecret: string; start?: string },
): Promise<HarnessBase> {
  const database = await freshPostgresDatabase(service);
  const logger = createLogger('test', { level: 'silent' });
  const bus = new InProcessMessageBus({ logger });
  const delivered: EventEnvelope[] = [];
  await bus.subscribe({
    queue: `test.${service}-events`,
    patterns: [`${service}.#`],
    handler: async (envelope) => {
      delivered.push(envelope);
    },
  });
  return {
    databaseUrl: database.url,
    dropDatabase: () => database.drop(),
    bus,
    delivered,
    clock: new ManualClock(options.start ?? '2026-11-22T10:00:00.000Z'),
    logger,
    env: {
      PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: database.url,
      INTERNAL_JWT_SECRET: options.jwtSecret,
      LOG_LEVEL: 'silent',
    },
  };
}

/** A caller of a service under test, holding an internal token as the gateway would mint it. */
export interface InternalClient {
  platformId: string;
  call(method: string, path: string, body?: unknown): Promise<JsonReply>;
}

/** A client calling `baseUrl` with an internal token for `claims`. */
export function internalClient(baseUrl: string, jwtSecret: string, claims: InternalClaims): InternalClient {
  const token = signInternalToken(jwtSecret, claims);
  return {
    platformId: claims.platformId,
    call: (method, path, body) => requestJson(baseUrl, token, method, path, body),
  };
}

/** The claims of a new platform's sandbox key on the basic plan (override any of them). */
export function platformClaims(overrides: Partial<InternalClaims> = {}): InternalClaims {
  return {
    platformId: newId('plat'),
    environment: 'sandbox',
    keyId: newId('key'),
    plan: 'basic',
    role: 'platform',
    ...overrides,
  };
}
