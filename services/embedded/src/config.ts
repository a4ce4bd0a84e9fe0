import { z } from 'zod';
import { baseEnvSchema, env } from '@svc/config';

/** The embedded default's environment: everything has a working default. */
// The internal secret is generated and kept under DATA_DIR: the process signs and checks its own tokens.
export const embeddedConfigSchema = baseEnvSchema.omit({ INTERNAL_JWT_SECRET: true }).extend({
  PORT: env.port(8080),
  /** The gateway's /metrics (not on PORT, which is public); the services' own stay on their loopback ports. */
  METRICS_PORT: env.port(9464),
  HOST: z.string().default('127.0.0.1'),
  DATA_DIR: z.string().default('.data'),
  ADMIN_TOKEN: z.string().min(16, 'at least 16 characters').optional(),
  /** The operator's TOTP secret (base32); default: generated once and kept under DATA_DIR, printed at start. */
  ADMIN_TOTP_SECRET: z.string().min(16).optional(),
  SVC_BOOTSTRAP_KEY: z
    .string()
    .regex(/^svc_(test|live)_[0-9A-Za-z]{32,64}$/, 'expected svc_test_<32+ base62> or svc_live_<32+ base62>')
    .optional(),
  SVC_ALLOW_PRIVATE_FETCH: env.boolean(true),
  /** Account mail (#30): a real SMTP server; unset: a local catcher takes the mail and prints it. */
  SMTP_URL: z.string().optional(),
  /** The local catcher's SMTP port (when SMTP_URL is unset); taken: any free port. */
  MAIL_CATCHER_PORT: env.port(1025),
  /** Gateway: sign-ups (and, apart, reset requests) per client and per address an hour (default 5). */
  SIGN_UPS_PER_HOUR: z.string().optional(),
  /** Gateway: a dashboard session's own budget of public calls a minute and a day (defaults 300 and 20,000). */
  DASHBOARD_CALLS_PER_MINUTE: z.string().optional(),
  DASHBOARD_CALLS_PER_DAY: z.string().optional(),
  // Passed on as they are to every service (EmbeddedDeps.env); the service that reads one
  // validates it with its own schema and applies its own default when it is unset.
  /** Registry: the verification page a new claim's `nextStep.url` points at. */
  VERIFICATION_BASE_URL: z.string().optional(),
  /** Enforcement: how often due timeline steps fire; 0 turns it off. */
  TIMELINE_INTERVAL_MS: z.string().optional(),
  /** Licensing: how often due licenses are expired, renewed or cancelled; 0 turns it off. */
  LICENSE_EXPIRY_INTERVAL_MS: z.string().optional(),
});

export type EmbeddedConfig = z.output<typeof embeddedConfigSchema>;
