import { systemClock, type Clock } from '@svc/clock';
import { closeGuardedAgents, guardedFetch } from '@svc/fetch-guard';
import { createLogger, type Logger } from '@svc/logger';
import {
  AmqpMessageBus,
  messagingMigrations,
  OutboxRelay,
  watchConsumers,
  type MessageBus,
} from '@svc/messaging';
import { deadLetterRoutes } from '@svc/service-runtime';
import {
  counterOn,
  createService,
  gaugeOn,
  histogramOn,
  idempotencyMigrations,
  type Service,
} from '@svc/service-kit';
import {
  createDatabase,
  loadMigrationsFromDir,
  runMigrations,
  serviceMigrationsDir,
  type Database,
  type MigrationSource,
} from '@svc/storage';
import type { WebhookDispatcherConfig } from './config';
import { AttemptRepository } from './data-access/attempt.repository';
import { DeliveryRepository } from './data-access/delivery.repository';
import { EndpointRepository } from './data-access/endpoint.repository';
import { DeliveryWorker, type DeliveryWorkerOptions } from './domain/delivery-worker';
import type { FetchFn, WebhookContext } from './domain/ports';
import { defaultRetryPolicy, type RetryPolicy } from './domain/retry-schedule';
import { webhookRoutes } from './entry-points/http/webhooks.routes';
import {
  PLATFORM_EVENTS_QUEUE,
  subscribePlatformEvents,
} from './entry-points/messaging/platform-events.consumer';

export interface StartOverrides {
  db?: Database;
  bus?: MessageBus;
  logger?: Logger;
  clock?: Clock;
  /** The outbound POST (default guardedFetch). */
  fetch?: FetchFn;
  /** Replaces parts of the retry policy (tests). */
  retry?: Partial<RetryPolicy>;
  worker?: Omit<DeliveryWorkerOptions, 'onAttempt'>;
}

export interface RunningWebhookDispatcher {
  url: string;
  port: number;
  db: Database;
  service: Service;
  worker: DeliveryWorker;
  context: WebhookContext;
  stop(): Promise<void>;
}

/** The dispatcher's own migrations. */
export function webhookDispatcherMigrations(): MigrationSource[] {
  return [
    { namespace: 'webhook-dispatcher', migrations: loadMigrationsFromDir(serviceMigrationsDir(__dirname)) },
  ];
}

/** Wires config -> database -> migrations -> bus -> consumers -> delivery worker -> http. */
export async function startWebhookDispatcher(
  config: WebhookDispatcherConfig,
  overrides: StartOverrides = {},
): Promise<RunningWebhookDispatcher> {
  const logger = overrides.logger ?? createLogger('webhook-dispatcher');
  const clock = overrides.clock ?? systemClock;
  const db =
    overrides.db ??
    (await createDatabase({
      url: config.DATABASE_URL,
      applicationName: 'webhook-dispatcher',
      onError: (err) => logger.error({ err }, 'database'),
    }));
  const applied = await runMigrations(db, [
    messagingMigrations,
    idempotencyMigrations,
    ...webhookDispatcherMigrations(),
  ]);
  if (applied.length > 0) logger.info({ applied }, 'migrations applied');
  const bus =
    overrides.bus ??
    (await AmqpMessageBus.connect({ url: config.AMQP_URL, logger, connectionName: 'webhook-dispatcher' }));

  // The context is built before the worker and relay it kicks; they are set right below.
  const late: { worker?: DeliveryWorker; relay?: OutboxRelay } = {};
  const context: WebhookContext = {
    db,
    endpoints: new EndpointRepository(),
    deliveries: new DeliveryRepository(),
    attempts: new AttemptRepository(),
    clock,
    logger,
    environment: config.SVC_ENVIRONMENT,
    allowPrivateFetch: config.SVC_ALLOW_PRIVATE_FETCH,
    retry: {
      ...defaultRetryPolicy(config.SVC_ENVIRONMENT, config.WEBHOOK_RETRY_TIME_DIVISOR),
      ...overrides.retry,
    },
    fetch: overrides.fetch ?? guardedFetch,
    attemptTimeoutMs: config.WEBHOOK_TIMEOUT_MS,
    kick: () => late.worker?.kick(),
    kickOutbox: () => late.relay?.kick(),
  };

  const service = createService({
    name: 'webhook-dispatcher',
    logger,
    internalJwtSecret: config.INTERNAL_JWT_SECRET,
    idempotency: { db },
    readiness: [
      { name: 'database', check: () => db.ping() },
      {
        name: 'broker',
        // Not a reason to leave the load balancer: endpoints and deliveries work without it.
        informational: true,
        check: async () => {
          if (!bus.isReady()) throw new Error('broker not connected');
        },
      },
    ],
    routes: (router) => {
      deadLetterRoutes(router, { bus, queues: [PLATFORM_EVENTS_QUEUE], logger });
      webhookRoutes(router, context);
    },
  });

  const attempts = counterOn(service.registry, {
    name: 'webhook_delivery_attempts_total',
    help: 'Webhook delivery attempts by outcome',
    labelNames: ['outcome'],
  });
  const duration = histogramOn(service.registry, {
    name: 'webhook_delivery_duration_seconds',
    help: 'Duration of one webhook delivery attempt',
    buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
  });
  const lag = histogramOn(service.registry, {
    name: 'webhook_event_to_delivery_seconds',
    help: 'From the event to its successful delivery',
    buckets: [0.05, 0.1, 0.25, 0.5, 1, 5, 30, 300, 3600],
  });
  gaugeOn(service.registry, {
    name: 'webhook_pending_deliveries',
    help: 'Deliveries waiting to be sent or retried',
    collect() {
      return context.deliveries.countPending(db).then((n) => this.set(n));
    },
  });

  const worker = new DeliveryWorker(context, {
    ...overrides.worker,
    concurrency: overrides.worker?.concurrency ?? config.WEBHOOK_CONCURRENCY,
    pollIntervalMs: overrides.worker?.pollIntervalMs ?? config.WEBHOOK_POLL_INTERVAL_MS,
    onAttempt: (outcome) => {
      attempts.inc({
        outcome: outcome.disabled === undefined ? outcome.outcome : `disabled_${outcome.disabled}`,
      });
      duration.observe(outcome.durationMs / 1000);
      if (outcome.outcome === 'succeeded') {
        lag.observe(Math.max(0, clock.now().getTime() - outcome.eventCreatedAt.getTime()) / 1000);
      }
    },
  });
  const relay = new OutboxRelay({
    db,
    bus,
    logger,
    clock,
    name: 'webhook-dispatcher',
    registry: service.registry,
  });

  late.worker = worker;
  late.relay = relay;
  await subscribePlatformEvents(bus, db, context);
  watchConsumers(service.registry, bus, [PLATFORM_EVENTS_QUEUE]);
  relay.start();
  worker.start();
  const { port, url } = await service.listen(config.PORT, config.HOST);
  logger.info({ url }, 'webhook dispatcher listening');

  return {
    url,
    port,
    db,
    service,
    worker,
    context,
    stop: async () => {
      await service.stop();
      await worker.stop();
      await relay.stop();
      // The keep-alive sockets of fetch-guard's pools would hold the process open for seconds.
      // The pools are shared by the process; a later fetch opens new ones.
      if (overrides.fetch === undefined) await closeGuardedAgents();
      if (overrides.bus === undefined) await bus.close();
      if (overrides.db === undefined) await db.close();
    },
  };
}
