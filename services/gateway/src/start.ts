import { systemClock, type Clock } from '@svc/clock';
import { createLogger, type Logger } from '@svc/logger';
import {
  createDatabase,
  loadMigrationsFromDir,
  runMigrations,
  serviceMigrationsDir,
  type Database,
} from '@svc/storage';
import type { ServiceName } from '@svc/contracts';
import { environmentOfKey } from './domain/api-key';
import { registerKnownKey } from './domain/issue-api-key.use-case';
import type { Route } from './domain/route-table';
import type { GatewayConfig } from './config';
import { buildGateway, type Gateway } from './gateway';

export interface StartOverrides {
  clock?: Clock;
  logger?: Logger;
  routes?: Route[];
  /** An already open database (the embedded default opens PGlite itself). */
  db?: Database;
}

export interface RunningGateway {
  url: string;
  port: number;
  gateway: Gateway;
  db: Database;
  stop(): Promise<void>;
}

const BOOTSTRAP_PLATFORM_ID = 'plat_bootstrap0000000000000000';
const BOOTSTRAP_KEY_ID = 'key_bootstrap0000000000000000';
const HOUSEKEEPING_INTERVAL_MS = 10 * 60 * 1000;

/** The gateway's migrations. */
export function gatewayMigrations() {
  return [{ namespace: 'gateway', migrations: loadMigrationsFromDir(serviceMigrationsDir(__dirname)) }];
}

/** SVC_BOOTSTRAP_KEY: a platform "bootstrap" on the sandbox plan owns this key. */
async function bootstrap(gateway: Gateway, key: string, clock: Clock): Promise<void> {
  const environment = environmentOfKey(key);
  if (environment === null) throw new Error('SVC_BOOTSTRAP_KEY is not a well-formed key');
  const { db, platforms, keys } = gateway.context;
  if ((await platforms.find(db, BOOTSTRAP_PLATFORM_ID)) === null) {
    await platforms.insert(db, {
      id: BOOTSTRAP_PLATFORM_ID,
      name: 'bootstrap',
      plan: 'sandbox',
      domain: null,
      limits: { perMinute: 60, perDay: 1000 },
      createdAt: clock.now(),
    });
  }
  await registerKnownKey(
    { db, keys, clock },
    { platformId: BOOTSTRAP_PLATFORM_ID, key, environment, keyId: BOOTSTRAP_KEY_ID },
  );
}

function serviceUrls(config: GatewayConfig): Partial<Record<ServiceName, string>> {
  const urls: Partial<Record<ServiceName, string>> = {};
  if (config.REGISTRY_URL !== undefined) urls.registry = config.REGISTRY_URL;
  if (config.DETECTION_URL !== undefined) urls.detection = config.DETECTION_URL;
  if (config.LICENSING_URL !== undefined) urls.licensing = config.LICENSING_URL;
  if (config.ENFORCEMENT_URL !== undefined) urls.enforcement = config.ENFORCEMENT_URL;
  if (config.BILLING_URL !== undefined) urls.billing = config.BILLING_URL;
  if (config.WEBHOOK_DISPATCHER_URL !== undefined) urls['webhook-dispatcher'] = config.WEBHOOK_DISPATCHER_URL;
  return urls;
}

/** Wires config -> database -> migrations -> bootstrap -> http, and starts housekeeping. */
export async function startGateway(
  config: GatewayConfig,
  overrides: StartOverrides = {},
): Promise<RunningGateway> {
  const logger = overrides.logger ?? createLogger('gateway');
  const clock = overrides.clock ?? systemClock;
  const db =
    overrides.db ??
    (await createDatabase({
      url: config.DATABASE_URL,
      applicationName: 'gateway',
      onError: (err) => logger.error({ err }, 'database'),
    }));
  const applied = await runMigrations(db, gatewayMigrations());
  const hotPathDb =
    db.kind === 'postgres' && config.DATABASE_URL.startsWith('postgres')
      ? await createDatabase({
          url: config.DATABASE_URL,
          applicationName: 'gateway-hot-path',
          sessionSettings: { synchronous_commit: 'off' },
          onError: (err) => logger.error({ err }, 'database'),
        })
      : undefined;
  if (applied.length > 0) logger.info({ applied }, 'migrations applied');

  const gateway = buildGateway({
    db,
    ...(hotPathDb === undefined ? {} : { hotPathDb }),
    clock,
    logger,
    environment: config.SVC_ENVIRONMENT,
    adminToken: config.ADMIN_TOKEN,
    internalJwtSecret: config.INTERNAL_JWT_SECRET,
    serviceUrls: serviceUrls(config),
    upstreamTimeoutMs: config.UPSTREAM_TIMEOUT_MS,
    ...(overrides.routes === undefined ? {} : { routes: overrides.routes }),
  });
  if (config.SVC_BOOTSTRAP_KEY !== undefined) await bootstrap(gateway, config.SVC_BOOTSTRAP_KEY, clock);

  const housekeeping = setInterval(() => {
    const dayAgo = new Date(clock.now().getTime() - 2 * 86_400_000);
    Promise.all([
      gateway.context.store.purgeCounters(gateway.context.hotPathDb, dayAgo),
      gateway.context.idempotency.purge(gateway.context.hotPathDb, dayAgo),
    ]).catch((err: unknown) => logger.warn({ err }, 'housekeeping failed'));
  }, HOUSEKEEPING_INTERVAL_MS);
  housekeeping.unref();

  const { port, url } = await gateway.service.listen(config.PORT, config.HOST);
  return {
    url,
    port,
    gateway,
    db,
    stop: async () => {
      clearInterval(housekeeping);
      await gateway.service.stop();
      await gateway.close();
      await hotPathDb?.close();
      if (overrides.db === undefined) await db.close();
    },
  };
}
