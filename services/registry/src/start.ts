import path from 'node:path';
import { systemClock, type Clock } from '@svc/clock';
import { newId } from '@svc/ids';
import { createLogger, type Logger } from '@svc/logger';
import {
  AmqpMessageBus,
  appendToOutbox,
  messagingMigrations,
  OutboxRelay,
  type MessageBus,
} from '@svc/messaging';
import { createService, type CreateServiceOptions } from '@svc/service-kit';
import {
  createDatabase,
  loadMigrationsFromDir,
  runMigrations,
  serviceMigrationsDir,
  type Database,
} from '@svc/storage';
import type { RegistryConfig } from './config';
import { BoxStatsRepository } from './data-access/box-stats.repository';
import { BoxRepository } from './data-access/box.repository';
import { ClaimRepository } from './data-access/claim.repository';
import type { RegistryContext } from './domain/ports';
import { boxRoutes } from './entry-points/http/boxes.routes';
import { claimVerificationRoutes } from './entry-points/http/claim-verification.routes';
import { claimRoutes } from './entry-points/http/claims.routes';
import { boxStatsSubscriptions } from './entry-points/messaging/box-stats.consumer';

export interface StartOverrides {
  /** An already open database (embedded: PGlite; tests). Not closed by stop(). */
  db?: Database;
  /** A bus to join (embedded: the in-process one). Not closed by stop(). */
  bus?: MessageBus;
  logger?: Logger;
  /** The clock of the domain (timestamps, the statistics period); tokens are checked against real time. */
  clock?: Clock;
  /** Shared metrics registry (several services in one process). */
  registry?: CreateServiceOptions['registry'];
}

export interface RunningRegistry {
  url: string;
  port: number;
  db: Database;
  bus: MessageBus;
  relay: OutboxRelay;
  stop(): Promise<void>;
}

/** The registry's migrations (after the outbox and inbox tables of @svc/messaging). */
export function registryMigrations() {
  return [
    messagingMigrations,
    {
      namespace: 'registry',
      migrations: loadMigrationsFromDir(serviceMigrationsDir(path.resolve(__dirname))),
    },
  ];
}

/** Wires config -> database -> migrations -> bus -> consumers -> relay -> http. */
export async function startRegistry(
  config: RegistryConfig,
  overrides: StartOverrides = {},
): Promise<RunningRegistry> {
  const logger = overrides.logger ?? createLogger('registry');
  const clock = overrides.clock ?? systemClock;
  const db =
    overrides.db ??
    (await createDatabase({
      url: config.DATABASE_URL,
      applicationName: 'registry',
      onError: (err) => logger.error({ err }, 'database'),
    }));
  const closeOwn: { name: string; close(): Promise<void> }[] = [];
  if (overrides.db === undefined) closeOwn.push({ name: 'database', close: () => db.close() });
  try {
    const applied = await runMigrations(db, registryMigrations());
    if (applied.length > 0) logger.info({ applied }, 'migrations applied');

    let bus = overrides.bus;
    if (bus === undefined) {
      if (config.AMQP_URL === undefined) throw new Error('AMQP_URL is required when no bus is given');
      const amqp = await AmqpMessageBus.connect({ url: config.AMQP_URL, logger, connectionName: 'registry' });
      bus = amqp;
      closeOwn.unshift({ name: 'bus', close: () => amqp.close() });
    }

    const stats = new BoxStatsRepository();
    for (const subscription of boxStatsSubscriptions({ db, stats, clock })) await bus.subscribe(subscription);

    const relay = new OutboxRelay({
      db,
      bus,
      logger,
      clock,
      name: 'registry',
      ...(overrides.registry === undefined ? {} : { registry: overrides.registry }),
    });
    relay.start();

    const ctx: RegistryContext = {
      db,
      claims: new ClaimRepository(),
      boxes: new BoxRepository(),
      stats,
      clock,
      outbox: appendToOutbox,
      eventsCommitted: () => relay.kick(),
      verificationBaseUrl: config.VERIFICATION_BASE_URL,
      newId,
    };
    const readyBus = bus;
    const service = createService({
      name: 'registry',
      logger,
      internalJwtSecret: config.INTERNAL_JWT_SECRET,
      ...(overrides.registry === undefined ? {} : { registry: overrides.registry }),
      readiness: [
        { name: 'db', check: () => db.ping() },
        {
          name: 'bus',
          check: async () => {
            if (!readyBus.isReady()) throw new Error('message bus not connected');
          },
        },
      ],
      routes: (router) => {
        claimRoutes(router, ctx);
        claimVerificationRoutes(router, ctx);
        boxRoutes(router, ctx);
      },
    });
    const { port, url } = await service.listen(config.PORT, config.HOST);
    return {
      url,
      port,
      db,
      bus,
      relay,
      stop: async () => {
        await service.stop();
        await relay.stop();
        for (const part of closeOwn) await part.close();
      },
    };
  } catch (err) {
    for (const part of closeOwn) await part.close().catch(() => undefined);
    throw err;
  }
}
