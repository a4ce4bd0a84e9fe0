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
import type { BillingConfig } from './config';
import { LedgerRepository } from './data-access/ledger.repository';
import { LicenseRepository } from './data-access/license.repository';
import { UsageReportRepository } from './data-access/usage-report.repository';
import type { BillingContext } from './domain/ports';
import { revenueRoutes } from './entry-points/http/revenue.routes';
import { usageRoutes } from './entry-points/http/usage.routes';
import { licenseProjectionSubscription } from './entry-points/messaging/license-projection.consumer';

export interface StartOverrides {
  /** An already open database (embedded: PGlite; tests). Not closed by stop(). */
  db?: Database;
  /** A bus to join (embedded: the in-process one). Not closed by stop(). */
  bus?: MessageBus;
  logger?: Logger;
  /** The clock of the domain (report times, the current period); tokens are checked against real time. */
  clock?: Clock;
  /** Shared metrics registry (several services in one process). */
  registry?: CreateServiceOptions['registry'];
}

export interface RunningBilling {
  url: string;
  port: number;
  db: Database;
  bus: MessageBus;
  relay: OutboxRelay;
  stop(): Promise<void>;
}

/** Billing's migrations (after the outbox and inbox tables of @svc/messaging). */
export function billingMigrations() {
  return [
    messagingMigrations,
    {
      namespace: 'billing',
      migrations: loadMigrationsFromDir(serviceMigrationsDir(path.resolve(__dirname))),
    },
  ];
}

/** Wires config -> database -> migrations -> bus -> consumers -> relay -> http. */
export async function startBilling(
  config: BillingConfig,
  overrides: StartOverrides = {},
): Promise<RunningBilling> {
  const logger = overrides.logger ?? createLogger('billing');
  const clock = overrides.clock ?? systemClock;
  const db =
    overrides.db ??
    (await createDatabase({
      url: config.DATABASE_URL,
      applicationName: 'billing',
      onError: (err) => logger.error({ err }, 'database'),
    }));
  const closeOwn: { name: string; close(): Promise<void> }[] = [];
  if (overrides.db === undefined) closeOwn.push({ name: 'database', close: () => db.close() });
  try {
    const applied = await runMigrations(db, billingMigrations());
    if (applied.length > 0) logger.info({ applied }, 'migrations applied');

    let bus = overrides.bus;
    if (bus === undefined) {
      if (config.AMQP_URL === undefined) throw new Error('AMQP_URL is required when no bus is given');
      const amqp = await AmqpMessageBus.connect({ url: config.AMQP_URL, logger, connectionName: 'billing' });
      bus = amqp;
      closeOwn.unshift({ name: 'bus', close: () => amqp.close() });
    }

    const licenses = new LicenseRepository();
    await bus.subscribe(licenseProjectionSubscription({ db, licenses, clock }));

    const relay = new OutboxRelay({
      db,
      bus,
      logger,
      clock,
      name: 'billing',
      ...(overrides.registry === undefined ? {} : { registry: overrides.registry }),
    });
    relay.start();

    const ctx: BillingContext = {
      db,
      licenses,
      reports: new UsageReportRepository(),
      ledger: new LedgerRepository(),
      clock,
      outbox: appendToOutbox,
      eventsCommitted: () => relay.kick(),
      newId,
    };
    const readyBus = bus;
    const service = createService({
      name: 'billing',
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
        usageRoutes(router, ctx);
        revenueRoutes(router, ctx);
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
