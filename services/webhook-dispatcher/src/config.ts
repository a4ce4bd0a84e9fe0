import { z } from 'zod';
import { baseEnvSchema, env } from '@svc/config';

/** The webhook dispatcher's environment (README, Configuration). */
export const webhookDispatcherConfigSchema = baseEnvSchema.extend({
  PORT: env.port(8086),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.string().default('postgres://postgres@127.0.0.1:5432/webhook_dispatcher'),
  /** RabbitMQ; required unless a bus is handed in (embedded mode). No default: RabbitMQ's guest user is no credential to fall back on. */
  AMQP_URL: env.url(['amqp', 'amqps']).optional(),
  /** Development and tests only: endpoints on private addresses. Never in production. */
  SVC_ALLOW_PRIVATE_FETCH: env.boolean(false),
  /** Deadline of one delivery attempt. */
  WEBHOOK_TIMEOUT_MS: env.int(10_000),
  /** Divides the retry schedule, breaker cool-down and disable threshold; default 60 in sandbox, 1 in production. */
  WEBHOOK_RETRY_TIME_DIVISOR: z.preprocess(
    (v) => (typeof v === 'string' && v.trim() === '' ? undefined : v),
    z.coerce.number().positive().optional(),
  ),
  /** Endpoints served concurrently by one replica. */
  WEBHOOK_CONCURRENCY: env.int(32),
  WEBHOOK_POLL_INTERVAL_MS: env.int(500),
  /** Enabled endpoints a platform may have at once; disabled and deleted ones do not count. */
  MAX_WEBHOOK_ENDPOINTS: env.int(20),
});

export type WebhookDispatcherConfig = z.output<typeof webhookDispatcherConfigSchema>;
