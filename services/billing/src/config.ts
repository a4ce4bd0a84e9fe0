import { z } from 'zod';
import { baseEnvSchema, env } from '@svc/config';

/** Billing's environment (README, Configuration). */
export const billingConfigSchema = baseEnvSchema.extend({
  PORT: env.port(8085),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.string().default('postgres://postgres@127.0.0.1:5432/billing'),
  /** RabbitMQ; required unless a bus is handed in (embedded mode). */
  AMQP_URL: env.url(['amqp', 'amqps']).optional(),
  /** How often license fees are brought up to date (new billing periods); 0 turns the job off. */
  FEE_ACCRUAL_INTERVAL_MS: env.int(60_000),
});

export type BillingConfig = z.output<typeof billingConfigSchema>;
