import { z } from 'zod';
import { baseEnvSchema, env } from '@svc/config';

const serviceUrl = env.url(['http', 'https']).optional();

/** The gateway's environment (README, Configuration). */
export const gatewayConfigSchema = baseEnvSchema.extend({
  PORT: env.port(8080),
  HOST: z.string().default('0.0.0.0'),
  // /metrics is served here (same HOST), never on the public PORT: Prometheus scrapes it in-cluster.
  METRICS_PORT: env.port(9464),
  DATABASE_URL: z.string().default('postgres://postgres@127.0.0.1:5432/gateway'),
  ADMIN_TOKEN: z.string().min(16, 'at least 16 characters').optional(),
  SVC_BOOTSTRAP_KEY: z
    .string()
    .regex(/^svc_(test|live)_[0-9A-Za-z]{32,64}$/, 'expected svc_test_<32+ base62> or svc_live_<32+ base62>')
    .optional(),
  SVC_ALLOW_PRIVATE_FETCH: env.boolean(false),
  // The budget of a route that declares none (contracts operations declare the identity check's).
  UPSTREAM_TIMEOUT_MS: env.int(10_000),
  // The dashboard's built assets (services/dashboard/dist); default: beside this service in the workspace or image.
  DASHBOARD_DIR: z.string().min(1).optional(),
  // The gateway's public address (https://api.example.com): an uploaded picture's URL names it. Default: the request's origin.
  PUBLIC_BASE_URL: env.url(['http', 'https']).optional(),
  // The broker the gateway consumes creator notifications from (#30, ADR 0028); unset: none are mailed.
  AMQP_URL: env.url(['amqp', 'amqps']).optional(),
  REGISTRY_URL: serviceUrl,
  DETECTION_URL: serviceUrl,
  LICENSING_URL: serviceUrl,
  ENFORCEMENT_URL: serviceUrl,
  BILLING_URL: serviceUrl,
  WEBHOOK_DISPATCHER_URL: serviceUrl,
  // Active (not revoked, rotated or expired) API keys a platform may hold per environment (#30).
  MAX_ACTIVE_API_KEYS: env.int(20),
  // A dashboard session's own budget of public API calls (#30, docs/spec/contracts.md §17): never the platform's limits.
  DASHBOARD_CALLS_PER_MINUTE: env.int(300),
  DASHBOARD_CALLS_PER_DAY: env.int(20_000),
  // Dashboard uploads (#30): a directory for their bytes (default: the database; the embedded
  // default sets one under its data directory), an account's quota, the uploads one replica reads
  // and stores at once, and the purge of uploads no claim names once they are this old (0: never).
  UPLOAD_DIR: z.string().min(1).optional(),
  UPLOAD_QUOTA_COUNT: env.int(100),
  UPLOAD_QUOTA_MB: env.int(50),
  UPLOADS_IN_FLIGHT: env.int(4),
  UPLOAD_PURGE_AFTER_HOURS: env.int(24),
  // Account mail (#30): the SMTP server (smtp://user:pass@host:587, STARTTLS when offered; smtps://…:465)
  // and the From header. Unset: mail waits in the outbox (mail_outbox) and a warning says so at start.
  SMTP_URL: env.optionalUrl(['smtp', 'smtps']),
  MAIL_FROM: z.string().min(3).default('Identity protection <no-reply@localhost>'),
  // Sign-ups, and apart password-reset requests, per client address and per e-mail address an hour.
  SIGN_UPS_PER_HOUR: env.int(5),
  // The operator's TOTP secret (base32, as an authenticator app takes it); unset: enrolled at the first operator sign-in.
  ADMIN_TOTP_SECRET: z.preprocess(
    (value) => (typeof value === 'string' && value.trim() === '' ? undefined : value),
    z
      .string()
      .transform((value) => value.replace(/\s+/g, '').toUpperCase())
      .pipe(z.string().regex(/^[A-Z2-7]{16,}=*$/, 'expected a base32 secret of at least 16 characters'))
      .optional(),
  ),
  // Which proxies in front of the gateway to believe about the client's address (X-Forwarded-For):
  // express's `trust proxy` (`loopback`, `10.0.0.0/8, 172.16.0.0/12`, a hop count such as `1`). Default: none.
  TRUST_PROXY: z
    .string()
    .optional()
    .transform((value, ctx) => parseTrustProxy(value, ctx)),
});

/**
 * TRUST_PROXY as express takes it: a hop count, `true`/`false`, or a comma-separated list of
 * addresses, CIDRs and the names `loopback`, `linklocal`, `uniquelocal`. Empty or unset: undefined
 * (express's default, trust nothing: the socket's address is the client's).
 */
export function parseTrustProxy(
  value: string | undefined,
  ctx?: { addIssue(issue: { code: 'custom'; message: string }): void },
): boolean | number | string[] | undefined {
  const raw = value?.trim() ?? '';
  if (raw === '' || raw === 'false') return undefined;
  if (raw === 'true') return true;
  if (/^\d+$/.test(raw)) return Number(raw);
  const entries = raw
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '');
  const bad = entries.find(
    (entry) => !/^(loopback|linklocal|uniquelocal|[0-9a-fA-F.:]+(\/\d{1,3})?)$/.test(entry),
  );
  if (bad !== undefined) {
    ctx?.addIssue({
      code: 'custom',
      message: `"${bad}" is no address, CIDR, hop count or loopback/linklocal/uniquelocal`,
    });
  }
  return entries;
}

export type GatewayConfig = z.output<typeof gatewayConfigSchema>;
