import type { Router } from 'express';
import type { Registry } from 'prom-client';
import { EVENT_QUEUES, topologyMismatch } from '@svc/contracts/topology';
import {
  AmqpMessageBus,
  messagingMigrations,
  OutboxRelay,
  watchConsumers,
  type MessageBus,
  type Subscription,
} from '@svc/messaging';
import { idempotencyMigrations, type ReadinessCheck } from '@svc/service-kit';
import {
  loadMigrationsFromDir,
  serviceMigrationsDir,
  type Database,
  type MigrationSource,
} from '@svc/storage';
import { deadLetterRoutes } from './dead-letter.routes';
import { healthRoutes } from './health.routes';
import {
  startHttpService,
  type BackgroundPart,
  type HttpServiceConfig,
  type HttpStartOverrides,
  type HttpWiring,
} from './start-http-service';

/** The settings every domain service reads (its config schema extends these). */
export interface DomainServiceConfig extends HttpServiceConfig {
  AMQP_URL?: string | undefined;
}

/** What a caller may hand in instead of what the service would open itself. */
export interface StartOverrides extends HttpStartOverrides {
  /** A bus to join (embedded: the in-process one). Not closed by stop(). */
  bus?: MessageBus;
}

/** What the runtime gives a domain service to build its context from. */
export interface DomainWiring extends HttpWiring {
  bus: MessageBus;
  /** Publishes committed outbox rows soon rather than at the next poll. */
  kickRelay(): void;
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
  /** Where `/metrics` is served. */
  metricsUrl: string;
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
 * consumers -> outbox relay -> background jobs -> HTTP (startHttpService, with the bus, its
 * consumers and the relay as the first background parts). Consumers subscribe before the relay
 * starts, so an in-process bus never drops an event for want of a queue. stop() runs the reverse.
 * Every service gets the same operations side: outbox, consumer and dead-letter metrics on its
 * own `/metrics`, the internal dead-letter and health endpoints, and a `/readyz` that follows the database
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
  let joined: { bus: MessageBus; relay: OutboxRelay } | undefined;
  const running = await startHttpService({
    name,
    config,
    overrides,
    migrations: options.migrations,
    wire: async ({ db, clock, logger, registry }) => {
      let bus = overrides.bus;
      let amqp: AmqpMessageBus | undefined;
      const closeBus: BackgroundPart = { name: 'bus', start: () => undefined, stop: async () => undefined };
      if (bus === undefined) {
        if (config.AMQP_URL === undefined) throw new Error('AMQP_URL is required when no bus is given');
        const connected = await AmqpMessageBus.connect({
          url: config.AMQP_URL,
          logger,
          connectionName: name,
        });
        amqp = connected;
        bus = connected;
        closeBus.stop = () => connected.close();
      }
      try {
        const relay = new OutboxRelay({ db, bus, logger, clock, name, registry });
        const parts = await options.wire({ db, bus, clock, logger, registry, kickRelay: () => relay.kick() });
        const subscriptions = parts.subscriptions ?? [];
        if (amqp !== undefined) {
          // On RabbitMQ, every consumer's queue exists before this service's relay publishes: an
          // event whose consumer has not started yet (a first install) waits in its queue instead
          // of being dropped as unroutable. That holds only if the topology lists this service's
          // own subscriptions as they are.
          for (const subscription of subscriptions) {
            const mismatch = topologyMismatch(subscription);
            if (mismatch !== undefined)
              throw new Error(`${name}: ${mismatch} (packages/contracts/src/topology.ts)`);
          }
          for (const { queue, patterns } of EVENT_QUEUES)
            await amqp.declareQueue({ queue, patterns: [...patterns] });
        }
        for (const subscription of subscriptions) await bus.subscribe(subscription);
        const queues = [...new Set(subscriptions.map((subscription) => subscription.queue))];
        watchConsumers(registry, bus, queues);
        joined = { bus, relay };
        const readyBus = bus;
        return {
          background: [
            closeBus,
            { name: 'outbox-relay', start: () => relay.start(), stop: () => relay.stop() },
            ...(parts.background ?? []),
          ],
          readiness: [
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
          routes: (router, self) => {
            deadLetterRoutes(router, { bus: readyBus, queues, logger });
            healthRoutes(router, { readiness: () => self.readiness(), backlog: () => relay.backlog() });
            parts.routes(router);
          },
        };
      } catch (err) {
        await closeBus.stop().catch(() => undefined);
        throw err;
      }
    },
  });
  if (joined === undefined) throw new Error('unreachable: the bus is joined while wiring');
  return { ...running, ...joined };
}
