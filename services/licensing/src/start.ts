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
import type { LicensingConfig } from './config';
import { BoxProjectionRepository } from './data-access/box-projection.repository';
import { LicenseRequestRepository } from './data-access/license-request.repository';
import { LicenseRepository } from './data-access/license.repository';
import { UsageRepository } from './data-access/usage.repository';
import type { ExpiryRun } from './domain/expire-due-licenses.use-case';
import type { LicensingContext } from './domain/ports';
import { licenseReviewRoutes } from './entry-points/http/license-review.routes';
import { licenseRoutes } from './entry-points/http/licenses.routes';
import { secondFamilyRoutes } from './entry-points/http/second-family.routes';
import { LicenseExpiryJob } from './entry-points/jobs/license-expiry.job';
import { licensingSubscriptions } from './entry-points/messaging/box-projection.consumer';

export interface StartOverrides {
  /** An already open database (embedded: PGlite; tests). Not closed by stop(). */
  db?: Database;
  /** A bus to join (embedded: the in-process one). Not closed by stop(). */
  bus?: MessageBus;
  logger?: Logger;
  /** The clock of the domain (timestamps, expiry, the usage period); tokens are checked against real time. */
  clock?: Clock;
  /** Shared metrics registry (several services in one process). */
  registry?: CreateServiceOptions['registry'];
}

export interface RunningLicensing {
  url: string;
  port: number;
  db: Database;
  bus: MessageBus;
  relay: OutboxRelay;
  /** One pass of the expiry job now (tests move a ManualClock, then call this). */
  expireDueLicenses(): Promise<ExpiryRun>;
  stop(): Promise<void>;
}

/** Licensing's migrations (after the outbox and inbox tables of @svc/messaging). */
export function licensingMigrations() {
  return [
    messagingMigrations,
    {
      namespace: 'licensing',
      migrations: loadMigrationsFromDir(serviceMigrationsDir(path.resolve(__dirname))),
    },
  ];
}

/** Wires config -> database -> migrations -> bus -> consumers -> relay -> expiry job -> http. */
export async function startLicensing(
  config: LicensingConfig,
  overrides: StartOverrides = {},
): Promise<RunningLicensing> {
  const logger = overrides.logger ?? createLogger('licensing');
  const clock = overrides.clock ?? systemClock;
  const db =
    overrides.db ??
    (await createDatabase({
      url: config.DATABASE_URL,
      applicationName: 'licensing',
      onError: (err) => logger.error({ err }, 'database'),
    }));
  const closeOwn: { name: string; close(): Promise<void> }[] = [];
  if (overrides.db === undefined) closeOwn.push({ name: 'database', close: () => db.close() });
  try {
    const applied = await runMigrations(db, licensingMigrations());
    if (applied.length > 0) logger.info({ applied }, 'migrations applied');

    let bus = overrides.bus;
    if (bus === undefined) {
      if (config.AMQP_URL === undefined) throw new Error('AMQP_URL is required when no bus is given');
      const amqp = await AmqpMessageBus.connect({
        url: config.AMQP_URL,
        logger,
        connectionName: 'licensing',
      });
      bus = amqp;
      closeOwn.unshift({ name: 'bus', close: () => amqp.close() });
    }

    const boxes = new BoxProjectionRepository();
    const usage = new UsageRepository();
    for (const subscription of licensingSubscriptions({ db, boxes, usage, clock })) {
      await bus.subscribe(subscription);
    }

    const relay = new OutboxRelay({
      db,
      bus,
      logger,
      clock,
      name: 'licensing',
      ...(overrides.registry === undefined ? {} : { registry: overrides.registry }),
    });
    relay.start();

    const ctx: LicensingContext = {
      db,
      boxes,
      requests: new LicenseRequestRepository(),
      licenses: new LicenseRepository(),
      usage,
      clock,
      outbox: appendToOutbox,
      eventsCommitted: () => relay.kick(),
      newId,
    };
    const expiry = new LicenseExpiryJob(ctx, config.LICENSE_EXPIRY_INTERVAL_MS, logger);
    expiry.start();

    const readyBus = bus;
    const service = createService({
      name: 'licensing',
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
        licenseRoutes(router, ctx);
        licenseReviewRoutes(router, ctx);
        secondFamilyRoutes(router, ctx);
      },
    });
    const { port, url } = await service.listen(config.PORT, config.HOST);
    return {
      url,
      port,
      db,
      bus,
      relay,
      expireDueLicenses: () => expiry.runOnce(),
      stop: async () => {
        await service.stop();
        await expiry.stop();
        await relay.stop();
        for (const part of closeOwn) await part.close();
      },
    };
  } catch (err) {
    for (const part of closeOwn) await part.close().catch(() => undefined);
    throw err;
  }
}
