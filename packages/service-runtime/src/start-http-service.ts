import type { Router } from 'express';
import type { Registry } from 'prom-client';
import { systemClock, type Clock } from '@svc/clock';
import { allOperations } from '@svc/contracts/catalogue';
import { createLogger, type Logger } from '@svc/logger';
import {
  createService,
  createServiceRegistry,
  type ReadinessCheck,
  type ReadinessReport,
  type Service,
  type TrustProxy,
  type CreateServiceOptions,
} from '@svc/service-kit';
import { createDatabase, runMigrations, type Database, type MigrationSource } from '@svc/storage';

/** The settings every service reads (its config schema extends these). */
export interface HttpServiceConfig {
  PORT: number;
  HOST: string;
  DATABASE_URL: string;
  INTERNAL_JWT_SECRET: string;
  /** The level of the logger made when none is handed in. */
  LOG_LEVEL?: string;
  /** `/metrics` on a port of its own, not the service's (the gateway: its own port is public). */
  METRICS_PORT?: number | undefined;
}

/** What a caller may hand in instead of what a service without a bus would open itself. */
export interface HttpStartOverrides {
  /** An already open database (embedded: PGlite; tests). Not closed by stop(). */
  db?: Database;
  logger?: Logger;
  /** The clock of the domain; internal tokens are still checked against real time. */
  clock?: Clock;
  /** Shared metrics registry (several services in one process). Default: the service's own. */
  registry?: Registry;
}

/** What the runtime gives a service to build its context from. */
export interface HttpWiring {
  db: Database;
  clock: Clock;
  logger: Logger;
  /** The registry `/metrics` serves: HTTP clients and jobs record into it. */
  registry: Registry;
}

/** A job that runs beside the HTTP server (expiry, delivery worker…), or a resource to close on stop (start is then a no-op). */
export interface BackgroundPart {
  name: string;
  start(): void;
  stop(): Promise<void>;
}

/** What the running service tells its own routes about itself. */
export interface ServiceSelf {
  /** What `/readyz` would answer now: the operator's health view (`/internal/health`, `/admin/health`). */
  readiness(): Promise<ReadinessReport>;
}

/** What a service contributes: its routes and its background jobs. */
export interface HttpParts {
  routes(router: Router, self: ServiceSelf): void;
  /** Routes run before the body is read (createService's `beforeBody`). */
  beforeBody?(router: Router): void;
  /** Middleware of every answer, health and metrics included (createService's `everyAnswer`). */
  everyAnswer?(router: Router): void;
  /** Started in order after wiring, stopped in reverse after the HTTP server. */
  background?: BackgroundPart[];
  /** Further `/readyz` checks of the service's own (e.g. an index still loading). */
  readiness?: ReadinessCheck[];
  /** createService's `trustProxy` (the gateway's TRUST_PROXY); default: trust no proxy. */
  trustProxy?: TrustProxy;
  /** createService's `fastPath`: requests the service answers without express (the gateway's public API). */
  fastPath?: CreateServiceOptions['fastPath'];
}

export interface RunningHttpService {
  url: string;
  port: number;
  /** Where `/metrics` is served: `<url>/metrics`, or its own port (METRICS_PORT). */
  metricsUrl: string;
  db: Database;
  /** What `/metrics` serves. */
  registry: Registry;
  stop(): Promise<void>;
}

/**
 * Starts a service the one way every service starts, without a bus (the gateway; the domain
 * services add theirs through startDomainService): database -> migrations -> wiring ->
 * background jobs -> HTTP, with `/readyz` following the database. stop() runs the reverse.
 * `edge` is the gateway's: callers come without an internal token, and it keeps its own
 * Idempotency-Key records (the domain services get the shared middleware on their database).
 */
export async function startHttpService(options: {
  name: string;
  config: HttpServiceConfig;
  overrides?: HttpStartOverrides;
  migrations: MigrationSource[];
  edge?: boolean;
  wire(wiring: HttpWiring): HttpParts | Promise<HttpParts>;
}): Promise<RunningHttpService> {
  const { name, config } = options;
  const overrides = options.overrides ?? {};
  const logger = overrides.logger ?? createLogger(name, { level: config.LOG_LEVEL ?? 'info' });
  const clock = overrides.clock ?? systemClock;
  const registry = overrides.registry ?? createServiceRegistry();
  const db =
    overrides.db ??
    (await createDatabase({
      url: config.DATABASE_URL,
      applicationName: name,
      onError: (err) => logger.error({ err }, 'database'),
    }));
  const closeDb = async () => {
    if (overrides.db === undefined) await db.close();
  };
  try {
    const applied = await runMigrations(db, options.migrations);
    if (applied.length > 0) logger.info({ applied }, 'migrations applied');

    const parts = await options.wire({ db, clock, logger, registry });
    const background = parts.background ?? [];
    const stopBackground = async () => {
      for (const part of [...background].reverse()) await part.stop();
    };
    try {
      for (const part of background) part.start();
      const edge = options.edge === true;
      // The routes ask the service about itself only while serving, once it is made.
      const self: ServiceSelf = { readiness: () => service.readiness() };
      const service: Service = createService({
        name,
        logger,
        internalJwtSecret: config.INTERNAL_JWT_SECRET,
        requireInternalAuth: !edge,
        registry,
        ...(edge ? {} : { idempotency: { db } }),
        readiness: [{ name: 'db', check: () => db.ping() }, ...(parts.readiness ?? [])],
        // Metrics, access lines and spans name each request by the operation id it served.
        operations: allOperations.filter((operation) => operation.service === name),
        ...(config.METRICS_PORT === undefined ? {} : { metricsPort: config.METRICS_PORT }),
        ...(parts.trustProxy === undefined ? {} : { trustProxy: parts.trustProxy }),
        ...(parts.fastPath === undefined ? {} : { fastPath: parts.fastPath }),
        routes: (router) => parts.routes(router, self),
        ...(parts.beforeBody === undefined
          ? {}
          : { beforeBody: (router: Router) => parts.beforeBody?.(router) }),
        ...(parts.everyAnswer === undefined
          ? {}
          : { everyAnswer: (router: Router) => parts.everyAnswer?.(router) }),
      });
      const { port, url, metrics } = await service.listen(config.PORT, config.HOST);
      return {
        url,
        port,
        metricsUrl: metrics?.url ?? `${url}/metrics`,
        db,
        registry,
        stop: async () => {
          await service.stop();
          await stopBackground();
          await closeDb();
        },
      };
    } catch (err) {
      await stopBackground().catch(() => undefined);
      throw err;
    }
  } catch (err) {
    await closeDb().catch(() => undefined);
    throw err;
  }
}
