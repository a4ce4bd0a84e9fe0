import type { Router } from 'express';
import type { Registry } from 'prom-client';
import { systemClock, type Clock } from '@svc/clock';
import { createLogger, type Logger } from '@svc/logger';
import {
  AmqpMessageBus,
  messagingMigrations,
  OutboxRelay,
  watchConsumers,
  type MessageBus,
  type Subscription,
} from '@svc/messaging';
import {
  createService,
  createServiceRegistry,
  idempotencyMigrations,
  type ReadinessCheck,
} from '@svc/service-kit';
import { deadLetterRoutes } from './dead-letter.routes';
import {
  createDatabase,
  loadMigrationsFromDir,
  runMigrations,
  serviceMigrationsDir,
  type Database,
  type MigrationSource,
} from '@svc/storage';

/** The settings every domain service reads (its config schema extends these). */
export interface DomainServiceConfig {
  PORT: number;
  HOST: string;
  DATABASE_URL: string;
  AMQP_URL?: string | undefined;
  INTERNAL_JWT_SECRET: string;
}

/** What a caller may hand in instead of what the service would open itself. */
export interface StartOverrides {
  /** An already open database (embedded: PGlite; tests). Not closed by stop(). */
  db?: Database;
  /** A bus to join (embedded: the in-process one). Not closed by stop(). */
  bus?: MessageBus;
  logger?: Logger;
  /** The clock of the domain; internal tokens are still checked against real time. */
  clock?: Clock;
  /** Shared metrics registry (several services in one process). Default: the service's own. */
  registry?: Registry;
}

/** What the runtime gives a service to build its context from. */
export interface DomainWiring {
  db: Database;
  bus: MessageBus;
  clock: Clock;
  logger: Logger;
  /** The registry `/metrics` serves: HTTP clients and jobs record into it. */
  registry: Registry;
  /** Publishes committed outbox rows soon rather than at the next poll. */
  kickRelay(): void;
}

/** A job that runs beside the HTTP server (expiry, delivery worker…). */
export interface BackgroundPart {
  name: string;
  start(): void;
  stop(): Promise<void>;
}

/** What a service contributes: its routes, its consumers and its background jobs. */
export interface DomainParts {
  routes(router: Router): void;
  subscriptions?: Subscription[];
  background?: BackgroundPart[];
  /** Further `/readyz` checks of the service's own (e.g. an index still loading). */
  readiness?: ReadinessCheck[];
}

export interface RunningDomainService {
  url: string;
  port: number;
  db: Database;
  bus: MessageBus;
  relay: OutboxRelay;
  /** What `/metrics` serves. */
  registry: Registry;
  stop(): Promise<void>;
}

/** A service's migrations: the outbox and inbox tables of @svc/messaging, the Idempotency-Key table of @svc/service-kit, then its own SQL files. */
export function domainMigrations(name: string, fromDir: string): MigrationSource[] {
  return [
    messagingMigrations,
    idempotencyMigrations,
    { namespace: name, migrations: loadMigrationsFromDir(serviceMigrationsDir(fromDir)) },
  ];
}

/**
 * Starts a domain service the one way every service starts: database -> migrations -> bus ->
 * consumers -> outbox relay -> background jobs -> HTTP. Consumers subscribe before the relay
 * starts, so an in-process bus never drops an event for want of a queue. stop() runs the reverse.
 * Every service gets the same operations side: outbox, consumer and dead-letter metrics on its
 * own `/metrics`, the internal dead-letter endpoints, and a `/readyz` that follows the database
 * (a broker outage alone is reported but does not make it unready: the outbox buffers).
 */
export async function startDomainService(options: {
  name: string;
  config: DomainServiceConfig;
  overrides?: StartOverrides;
  migrations: MigrationSource[];
  wire(wiring: DomainWiring): DomainParts | Promise<DomainParts>;
}): Promise<RunningDomainService> {
  const { name, config } = options;
  const overrides = options.overrides ?? {};
  const logger = overrides.logger ?? createLogger(name);
  const clock = overrides.clock ?? systemClock;
  const registry = overrides.registry ?? createServiceRegistry();
  const db =
    overrides.db ??
    (await createDatabase({
      url: config.DATABASE_URL,
      applicationName: name,
      onError: (err) => logger.error({ err }, 'database'),
    }));
  const closeOwn: { close(): Promise<void> }[] = [];
  if (overrides.db === undefined) closeOwn.push({ close: () => db.close() });
  try {
    const applied = await runMigrations(db, options.migrations);
    if (applied.length > 0) logger.info({ applied }, 'migrations applied');

    let bus = overrides.bus;
    if (bus === undefined) {
      if (config.AMQP_URL === undefined) throw new Error('AMQP_URL is required when no bus is given');
      const amqp = await AmqpMessageBus.connect({ url: config.AMQP_URL, logger, connectionName: name });
      bus = amqp;
      closeOwn.unshift({ close: () => amqp.close() });
    }

    const relay = new OutboxRelay({
      db,
      bus,
      logger,
      clock,
      name,
      registry,
    });
    const parts = await options.wire({ db, bus, clock, logger, registry, kickRelay: () => relay.kick() });
    const subscriptions = parts.subscriptions ?? [];
    for (const subscription of subscriptions) await bus.subscribe(subscription);
    const queues = [...new Set(subscriptions.map((subscription) => subscription.queue))];
    watchConsumers(registry, bus, queues);
    relay.start();
    const background = parts.background ?? [];
    for (const part of background) part.start();

    const readyBus = bus;
    const service = createService({
      name,
      logger,
      internalJwtSecret: config.INTERNAL_JWT_SECRET,
      registry,
      idempotency: { db },
      readiness: [
        { name: 'db', check: () => db.ping() },
        {
          name: 'bus',
          // Writes still commit with their events in the outbox while the broker is away.
          informational: true,
          check: async () => {
            if (!readyBus.isReady()) throw new Error('message bus not connected');
          },
        },
        ...(parts.readiness ?? []),
      ],
      routes: (router) => {
        deadLetterRoutes(router, { bus: readyBus, queues, logger });
        parts.routes(router);
      },
    });
    const { port, url } = await service.listen(config.PORT, config.HOST);
    return {
      url,
      port,
      db,
      bus,
      relay,
      registry,
      stop: async () => {
        await service.stop();
        for (const part of [...background].reverse()) await part.stop();
        await relay.stop();
        for (const part of closeOwn) await part.close();
      },
    };
  } catch (err) {
    for (const part of closeOwn) await part.close().catch(() => undefined);
    throw err;
  }
}
