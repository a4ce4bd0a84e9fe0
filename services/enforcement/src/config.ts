import { z } from 'zod';
import { baseEnvSchema, env } from '@svc/config';

/** Enforcement's environment (README, Configuration). SVC_ENVIRONMENT sets the grace period's length. */
export const enforcementConfigSchema = baseEnvSchema.extend({
  PORT: env.port(8084),
  HOST: z.string().default('0.0.0.0'),
  DATABASE_URL: z.string().default('postgres://postgres@127.0.0.1:5432/enforcement'),
  /** RabbitMQ; required unless a bus is handed in (embedded mode). */
  AMQP_URL: env.url(['amqp', 'amqps']).optional(),
  /** Detection, asked which box each avatar matches. */
  DETECTION_URL: env.url(['http', 'https']).default('http://127.0.0.1:8082'),
  DETECTION_TIMEOUT_MS: env.int(5000),
  /** How often the scheduler looks for due timeline steps; 0 turns it off. */
  TIMELINE_INTERVAL_MS: env.int(1000),
  /** How often avatars whose evaluation failed are tried again; 0 turns it off. */
  EVALUATION_RETRY_INTERVAL_MS: env.int(5000),
  /** How often the initial scans of new boxes are worked on; 0 turns it off. */
  BOX_SCAN_INTERVAL_MS: env.int(2000),
});

export type EnforcementConfig = z.output<typeof enforcementConfigSchema>;
