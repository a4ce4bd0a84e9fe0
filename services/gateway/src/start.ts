import path from 'node:path';
import type { Clock } from '@svc/clock';
import type { ServiceName } from '@svc/contracts/common';
import { messagingMigrations, type MessageBus } from '@svc/messaging';
import {
  defineService,
  periodicJob,
  startHttpService,
  type HttpStartOverrides,
  type RunningHttpService,
} from '@svc/service-runtime';
import { createDatabase, loadMigrationsFromDir, serviceMigrationsDir } from '@svc/storage';
import { gatewayConfigSchema, type GatewayConfig } from './config';
import { environmentOfKey } from './domain/api-key';
import { registerKnownKey } from './domain/issue-api-key.use-case';
import type { Route } from './domain/route-table';
import { startKeyChangeFeed } from './adapters/key-change-feed';
import { buildGateway, type Gateway } from './gateway';
import {
  busReadiness,
  HOUSEKEEPING_INTERVAL_MS,
  joinBus,
  startMailRelay,
  startUploadPurge,
  writeRequestLog,
} from './start-background';
import { REQUEST_LOG_RETENTION_DAYS } from '@svc/contracts/gateway';

/** What a caller (tests, the embedded default, benchmarks) may hand in. */
export interface StartOverrides extends HttpStartOverrides {
  /** Default: every declared operation owned by another service. */
  routes?: Route[];
  /** A bus to join (embedded: the in-process one; not closed by stop()). Default: AMQP_URL's, if set. */
  bus?: MessageBus;
}

export interface RunningGateway extends RunningHttpService {
  gateway: Gateway;
}

const BOOTSTRAP_PLATFORM_ID = 'plat_bootstrap0000000000000000';
const BOOTSTRAP_KEY_ID = 'key_bootstrap0000000000000000';
/** How often unspent budget idle for a second goes back to the shared counters (ADR 0025). */
const LEASE_SWEEP_INTERVAL_MS = 500;
/** How often a replica writes its keys' last use (the dashboard's "last used", #32). */
const KEY_USE_WRITE_INTERVAL_MS = 5_000;
/** How often each replica writes its buffered request log (#32): the newest requests show within it. */
const REQUEST_LOG_WRITE_INTERVAL_MS = 1_000;

/** The gateway's migrations. */
export function gatewayMigrations() {
  return [
    // The inbox of its one consumer (creator notifications, ADR 0028); the gateway publishes nothing.
    messagingMigrations,
    { namespace: 'gateway', migrations: loadMigrationsFromDir(serviceMigrationsDir(__dirname)) },
  ];
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

/**
 * Wires config -> database -> migrations -> bootstrap -> http and housekeeping, through the start
 * sequence of the services without a bus: the gateway publishes nothing, and its one consumer (creator
 * notifications) joins the bus it is handed or AMQP_URL's.
 */
export async function startGateway(
  config: GatewayConfig,
  overrides: StartOverrides = {},
): Promise<RunningGateway> {
  let gateway: Gateway | undefined;
  // The gateway's own address once it listens: the links of notification mail without PUBLIC_BASE_URL.
  const own: { url?: string } = {};
  const running = await startHttpService({
    name: 'gateway',
    config,
    overrides,
    migrations: gatewayMigrations(),
    // Clients reach the gateway with API keys; it keeps its own Idempotency-Key bindings.
    edge: true,
    wire: async ({ db, clock, logger, registry }) => {
      const hotPathDb =
        db.kind === 'postgres' && config.DATABASE_URL.startsWith('postgres')
          ? await createDatabase({
              url: config.DATABASE_URL,
              applicationName: 'gateway-hot-path',
              sessionSettings: { synchronous_commit: 'off' },
              onError: (err) => logger.error({ err }, 'database'),
            })
          : undefined;
      const built = buildGateway({
        db,
        ...(hotPathDb === undefined ? {} : { hotPathDb }),
        clock,
        logger,
        registry,
        environment: config.SVC_ENVIRONMENT,
        adminToken: config.ADMIN_TOKEN,
        internalJwtSecret: config.INTERNAL_JWT_SECRET,
        serviceUrls: serviceUrls(config),
        upstreamTimeoutMs: config.UPSTREAM_TIMEOUT_MS,
        dashboardDir: config.DASHBOARD_DIR ?? path.resolve(__dirname, '../../dashboard/dist'),
        ...(config.PUBLIC_BASE_URL === undefined ? {} : { publicBaseUrl: config.PUBLIC_BASE_URL }),
        maxActiveApiKeys: config.MAX_ACTIVE_API_KEYS,
        sessionBudget: {
          perMinute: config.DASHBOARD_CALLS_PER_MINUTE,
          perDay: config.DASHBOARD_CALLS_PER_DAY,
        },
        uploads: {
          dir: config.UPLOAD_DIR,
          quotaCount: config.UPLOAD_QUOTA_COUNT,
          quotaBytes: config.UPLOAD_QUOTA_MB * 1024 * 1024,
          inFlight: config.UPLOADS_IN_FLIGHT,
        },
        signUpsPerHour: config.SIGN_UPS_PER_HOUR,
        ...(config.ADMIN_TOTP_SECRET === undefined ? {} : { adminTotpSecret: config.ADMIN_TOTP_SECRET }),
        ...(overrides.routes === undefined ? {} : { routes: overrides.routes }),
      });
      gateway = built;
      const { keys, leases } = built.keyAuthentication;
      const feed = await startKeyChangeFeed(db, keys, logger);
      const closeOnStop = [
        { name: 'hot-path-pool', start: () => undefined, stop: async () => await hotPathDb?.close() },
        { name: 'upstream-clients', start: () => undefined, stop: () => built.close() },
        { name: 'key-change-feed', start: () => undefined, stop: () => feed.stop() },
      ];
      try {
        if (config.SVC_BOOTSTRAP_KEY !== undefined) await bootstrap(built, config.SVC_BOOTSTRAP_KEY, clock);
      } catch (err) {
        for (const part of closeOnStop.reverse()) await part.stop().catch(() => undefined);
        throw err;
      }
      const housekeeping = periodicJob({
        name: 'housekeeping',
        intervalMs: HOUSEKEEPING_INTERVAL_MS,
        logger,
        run: async () => {
          const dayAgo = new Date(clock.now().getTime() - 2 * 86_400_000);
          await Promise.all([
            built.context.store.purgeCounters(built.context.hotPathDb, dayAgo),
            built.context.idempotency.purge(built.context.hotPathDb, dayAgo),
            built.context.sessions.purge(built.context.db, dayAgo),
            built.context.accountMail.purge(built.context.db, dayAgo),
            built.context.members.purge(built.context.db, dayAgo),
            built.context.requestLog.purge(
              built.context.hotPathDb,
              new Date(clock.now().getTime() - REQUEST_LOG_RETENTION_DAYS * 86_400_000),
            ),
          ]).catch((err: unknown) => logger.warn({ err }, 'housekeeping failed'));
        },
      });
      const mailParts = startMailRelay(config, built, logger, clock);
      const busParts = await joinBus(config, overrides, built, { db, logger, clock, registry }, () => ({
        baseUrl: config.PUBLIC_BASE_URL ?? own.url ?? '',
      }));
      const uploadPurge = startUploadPurge(config, built, logger, clock);
      const leaseSweep = periodicJob({
        name: 'budget-leases',
        intervalMs: LEASE_SWEEP_INTERVAL_MS,
        logger,
        run: () => leases.giveBack(built.context.hotPathDb, clock.now()),
      });
      const keyUses = periodicJob({
        name: 'key-last-use',
        intervalMs: KEY_USE_WRITE_INTERVAL_MS,
        logger,
        run: async () => {
          await built.keyAuthentication.writeKeyUses(built.context.hotPathDb);
        },
      });
      const requestLogWrites = periodicJob({
        name: 'request-log',
        intervalMs: REQUEST_LOG_WRITE_INTERVAL_MS,
        logger,
        run: () => writeRequestLog(built.context, logger),
      });
      // Stopping (after the HTTP server): everything unspent goes back, for the other replicas, and
      // the keys' last uses and the buffered request log are written.
      const returnOnStop = {
        name: 'budget-leases-returned',
        start: () => undefined,
        stop: async () => {
          await leases
            .giveBack(built.context.hotPathDb, clock.now(), 0)
            .catch((err: unknown) => logger.warn({ err }, 'unspent budget not returned'));
          await built.keyAuthentication
            .writeKeyUses(built.context.hotPathDb)
            .catch((err: unknown) => logger.warn({ err }, "keys' last use not written"));
          await writeRequestLog(built.context, logger).catch((err: unknown) =>
            logger.warn({ err }, 'request log not written'),
          );
        },
      };
      return {
        routes: built.routes,
        beforeBody: built.beforeBody,
        everyAnswer: built.everyAnswer,
        fastPath: built.fastPath,
        // The client's address (sign-in throttling) behind the proxies TRUST_PROXY names.
        ...(config.TRUST_PROXY === undefined ? {} : { trustProxy: config.TRUST_PROXY }),
        background: [
          ...busParts,
          ...closeOnStop,
          returnOnStop,
          leaseSweep,
          keyUses,
          requestLogWrites,
          housekeeping,
          ...mailParts,
          ...uploadPurge,
        ],
        readiness: busParts.length === 0 ? [] : [busReadiness(busParts)],
      };
    },
  });
  own.url = running.url;
  if (gateway === undefined) throw new Error('unreachable: the gateway is built while wiring');
  return { ...running, gateway };
}

/** The gateway's start-up, declared once: main.ts, the embedded default and the test harness start it from here. */
export const gatewayService = defineService({
  name: 'gateway',
  urlVariable: 'GATEWAY_URL',
  configSchema: gatewayConfigSchema,
  start: startGateway,
});
