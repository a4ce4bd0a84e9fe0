import { closeGuardedAgents, guardedFetch } from '@svc/fetch-guard';
import {
  defineService,
  domainMigrations,
  startDomainService,
  type RunningDomainService,
  type StartOverrides as CommonOverrides,
} from '@svc/service-runtime';
import { counterOn, gaugeOn, histogramOn } from '@svc/service-kit';
import type { MigrationSource } from '@svc/storage';
import { webhookDispatcherConfigSchema, type WebhookDispatcherConfig } from './config';
import { AttemptRepository } from './data-access/attempt.repository';
import { DeliveryRepository } from './data-access/delivery.repository';
import { EndpointRepository } from './data-access/endpoint.repository';
import { DeliveryWorker, type DeliveryWorkerOptions } from './domain/delivery-worker';
import type { FetchFn, WebhookContext } from './domain/ports';
import { defaultRetryPolicy, type RetryPolicy } from './domain/retry-schedule';
import { webhookRoutes } from './entry-points/http/webhooks.routes';
import { platformEventsSubscription } from './entry-points/messaging/platform-events.consumer';

/** What a caller (tests, the embedded default) may hand in besides the common overrides. */
export interface StartOverrides extends CommonOverrides {
  /** The outbound POST (default guardedFetch). */
  fetch?: FetchFn;
  /** Replaces parts of the retry policy (tests). */
  retry?: Partial<RetryPolicy>;
  worker?: Omit<DeliveryWorkerOptions, 'onAttempt'>;
}

export interface RunningWebhookDispatcher extends RunningDomainService {
  worker: DeliveryWorker;
  context: WebhookContext;
}

/** The dispatcher's migrations: the outbox, inbox and Idempotency-Key tables, then its own. */
export function webhookDispatcherMigrations(): MigrationSource[] {
  return domainMigrations('webhook-dispatcher', __dirname);
}

/** Wires the dispatcher's store, consumer, delivery worker and routes into the common start sequence. */
export async function startWebhookDispatcher(
  config: WebhookDispatcherConfig,
  overrides: StartOverrides = {},
): Promise<RunningWebhookDispatcher> {
  let wired: { worker: DeliveryWorker; context: WebhookContext } | undefined;
  const running = await startDomainService({
    name: 'webhook-dispatcher',
    config,
    overrides,
    migrations: webhookDispatcherMigrations(),
    wire: ({ db, clock, logger, registry, kickRelay }) => {
      // The context is built before the worker it kicks; it is set right below.
      const late: { worker?: DeliveryWorker } = {};
      const context: WebhookContext = {
        db,
        endpoints: new EndpointRepository(),
        deliveries: new DeliveryRepository(),
        attempts: new AttemptRepository(),
        clock,
        logger,
        environment: config.SVC_ENVIRONMENT,
        allowPrivateFetch: config.SVC_ALLOW_PRIVATE_FETCH,
        maxEndpoints: config.MAX_WEBHOOK_ENDPOINTS,
        retry: {
          ...defaultRetryPolicy(config.SVC_ENVIRONMENT, config.WEBHOOK_RETRY_TIME_DIVISOR),
          ...overrides.retry,
        },
        fetch: overrides.fetch ?? guardedFetch,
        attemptTimeoutMs: config.WEBHOOK_TIMEOUT_MS,
        kick: () => late.worker?.kick(),
        handOff: (deliveries) => late.worker?.handOff(deliveries),
        kickOutbox: kickRelay,
      };

      const attempts = counterOn(registry, {
        name: 'webhook_delivery_attempts_total',
        help: 'Webhook delivery attempts by outcome',
        labelNames: ['outcome'],
      });
      const duration = histogramOn(registry, {
        name: 'webhook_delivery_duration_seconds',
        help: 'Duration of one webhook delivery attempt',
        buckets: [0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      });
      const lag = histogramOn(registry, {
        name: 'webhook_event_to_delivery_seconds',
        help: 'From the event to its successful delivery',
        buckets: [0.05, 0.1, 0.25, 0.5, 1, 5, 30, 300, 3600],
      });
      gaugeOn(registry, {
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
      late.worker = worker;
      wired = { worker, context };
      return {
        subscriptions: [platformEventsSubscription(db, context)],
        background: [
          {
            name: 'fetch-guard-agents',
            start: () => undefined,
            // The keep-alive sockets of fetch-guard's pools would hold the process open for
            // seconds. The pools are shared by the process; a later fetch opens new ones.
            stop: async () => {
              if (overrides.fetch === undefined) await closeGuardedAgents();
            },
          },
          { name: 'delivery-worker', start: () => worker.start(), stop: () => worker.stop() },
        ],
        routes: (router) => webhookRoutes(router, context),
      };
    },
  });
  if (wired === undefined) throw new Error('unreachable: the worker is made while wiring');
  return { ...running, ...wired };
}

/** The dispatcher's start-up, declared once: main.ts, the embedded default and the test harness start it from here. */
export const webhookDispatcherService = defineService({
  name: 'webhook-dispatcher',
  urlVariable: 'WEBHOOK_DISPATCHER_URL',
  configSchema: webhookDispatcherConfigSchema,
  start: startWebhookDispatcher,
});
