import { z } from 'zod';
import { baseEnvSchema, env } from '@svc/config';

/** Licensing's environment (README, Configuration). */
export const licensingConfigSchema = baseEnvSchema.extend({
  PORT: env.port(8083),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.string().default('postgres://postgres@127.0.0.1:5432/licensing'),
  /** RabbitMQ; required unless a bus is handed in (embedded mode). */
  AMQP_URL: env.url(['amqp', 'amqps']).optional(),
  /** The registry, asked about a box the projection has not heard of yet (read-through). */
  REGISTRY_URL: env.url(['http', 'https']).default('http://127.0.0.1:8081'),
  /** Short: a licence request waits for it. */
  REGISTRY_TIMEOUT_MS: env.int(2000),
  /** Billing, which owns usage: a license's detail shows the current period's figures from it (docs/adr/0016). */
  BILLING_URL: env.url(['http', 'https']).default('http://127.0.0.1:8085'),
  /** Short: a license's detail waits for it. */
  BILLING_TIMEOUT_MS: env.int(2000),
  /** How often the expiry job looks for due licenses; 0 turns it off. */
  LICENSE_EXPIRY_INTERVAL_MS: env.int(60_000),
});

export type LicensingConfig = z.output<typeof licensingConfigSchema>;
