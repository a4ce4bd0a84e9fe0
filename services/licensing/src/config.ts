import { z } from 'zod';
import { baseEnvSchema, env } from '@svc/config';

/** Licensing's environment (README, Configuration). */
export const licensingConfigSchema = baseEnvSchema.extend({
  PORT: env.port(8083),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.string().default('postgres://postgres@127.0.0.1:5432/licensing'),
  /** RabbitMQ; required unless a bus is handed in (embedded mode). */
  AMQP_URL: env.url(['amqp', 'amqps']).optional(),
  /** How often the expiry job looks for due licenses; 0 turns it off. */
  LICENSE_EXPIRY_INTERVAL_MS: env.int(60_000),
});

export type LicensingConfig = z.output<typeof licensingConfigSchema>;
