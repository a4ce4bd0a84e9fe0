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
  /** Licensing, asked about a license the projection has not heard of yet (read-through). */
  LICENSING_URL: env.url(['http', 'https']).default('http://127.0.0.1:8083'),
  /** Short: a usage report waits for it. */
  LICENSING_TIMEOUT_MS: env.int(2000),
});

export type BillingConfig = z.output<typeof billingConfigSchema>;
