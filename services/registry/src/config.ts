import { z } from 'zod';
import { baseEnvSchema, env } from '@svc/config';

/** The registry's environment (README, Configuration). */
export const registryConfigSchema = baseEnvSchema.extend({
  PORT: env.port(8081),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.string().default('postgres://postgres@127.0.0.1:5432/registry'),
  /** RabbitMQ; required unless a bus is handed in (embedded mode). */
  AMQP_URL: env.url(['amqp', 'amqps']).optional(),
  /** Where a claim's verification page lives (nextStep.url). */
  VERIFICATION_BASE_URL: env.url(['http', 'https']).default('https://verify.svc.example'),
  /** Detection, told to forget a claim's faces before a deletion or rejection is answered (ADR 0026). */
  DETECTION_URL: env.url(['http', 'https']).default('http://127.0.0.1:8082'),
  DETECTION_TIMEOUT_MS: env.int(2000),
});

export type RegistryConfig = z.output<typeof registryConfigSchema>;
