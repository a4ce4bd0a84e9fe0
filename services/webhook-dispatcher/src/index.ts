export {
  startWebhookDispatcher,
  webhookDispatcherMigrations,
  webhookDispatcherService,
  type RunningWebhookDispatcher,
  type StartOverrides,
} from './start';
export { webhookDispatcherConfigSchema, type WebhookDispatcherConfig } from './config';
export { webhookDispatcherEmbedded } from './embedded';
export { toPublicEvents, publicEventId, type PublicEvent } from './domain/public-events';
export { RETRY_DELAYS_MS, defaultRetryPolicy, retryDelayMs, type RetryPolicy } from './domain/retry-schedule';
export { webhookHeaders, sign as signWebhook, generateSecret } from './domain/webhook-signature';
