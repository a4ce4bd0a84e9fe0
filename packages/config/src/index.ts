import { z } from 'zod';

/** Thrown at start when the environment does not satisfy a service's schema; names every bad key. */
export class ConfigError extends Error {
  constructor(readonly problems: { key: string; message: string }[]) {
    super(`Invalid configuration: ${problems.map((p) => `${p.key}: ${p.message}`).join('; ')}`);
    this.name = 'ConfigError';
  }
}

/**
 * Validates `env` against `schema` and returns a typed, frozen configuration object.
 * Fails fast with every bad key named, so a misconfigured process never starts.
 */
export function loadConfig<S extends z.ZodType>(
  schema: S,
  env: Record<string, string | undefined> = process.env,
): Readonly<z.output<S>> {
  const result = schema.safeParse(env);
  const problems = result.success
    ? []
    : result.error.issues.map((issue) => ({
        key: issue.path.map(String).join('.') || '(env)',
        message: issue.message,
      }));
  // The development default is public: a production deployment must set its own secret. Checked
  // on the raw environment so that it is reported together with every other bad key.
  const readsSecret = schema instanceof z.ZodObject && 'INTERNAL_JWT_SECRET' in schema.shape;
  const secret = env.INTERNAL_JWT_SECRET;
  if (
    readsSecret &&
    env.SVC_ENVIRONMENT === 'production' &&
    (secret === undefined || secret === DEVELOPMENT_JWT_SECRET)
  ) {
    problems.push({
      key: 'INTERNAL_JWT_SECRET',
      message: 'must be set in production (the development default is public)',
    });
  }
  if (!result.success || problems.length > 0) throw new ConfigError(problems);
  return deepFreeze(result.data);
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value as Record<string, unknown>)) deepFreeze(inner);
  }
  return value;
}

// `PORT=` (compose's `${PORT:-}`, an empty line in a .env file) means "not set": without this,
// z.coerce turned it into 0, a random port or a zero timeout, instead of the default.
const unsetWhenEmpty = (value: unknown) =>
  typeof value === 'string' && value.trim() === '' ? undefined : value;

/** Env helpers: strings from the environment coerced with clear errors; an empty value counts as unset. */
export const env = {
  /** "true"/"false", "1"/"0", "yes"/"no" to boolean. */
  boolean: (fallback: boolean) =>
    z.preprocess(
      unsetWhenEmpty,
      z
        .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'expected true or false' })
        .optional()
        .transform((v) => (v === undefined ? fallback : v === 'true' || v === '1' || v === 'yes')),
    ),
  /** A TCP port. */
  port: (fallback: number) =>
    z.preprocess(unsetWhenEmpty, z.coerce.number().int().min(0).max(65535).default(fallback)),
  /** A non-negative integer. */
  int: (fallback: number) => z.preprocess(unsetWhenEmpty, z.coerce.number().int().min(0).default(fallback)),
  /** A number from 0 to 1 (a share, e.g. of traces sampled). */
  ratio: (fallback: number) =>
    z.preprocess(unsetWhenEmpty, z.coerce.number().min(0).max(1).default(fallback)),
  /** A URL with one of the given schemes; empty or absent is unset. */
  optionalUrl: (schemes: string[]) => z.preprocess(unsetWhenEmpty, env.url(schemes).optional()),
  /** A URL with one of the given schemes. */
  url: (schemes: string[]) =>
    z.string().refine(
      (v) => {
        try {
          return schemes.includes(new URL(v).protocol.replace(':', ''));
        } catch {
          return false;
        }
      },
      `expected a ${schemes.join(' or ')} URL`,
    ),
};

/** The INTERNAL_JWT_SECRET used when none is set; refused when SVC_ENVIRONMENT is production. */
export const DEVELOPMENT_JWT_SECRET = 'dev-internal-jwt-secret-change-me-0123456789';

/** The variables every service shares. */
export const baseEnvSchema = z.object({
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  /**
   * Tracing (@svc/telemetry): the OTLP/HTTP collector spans are sent to (`http://otel-collector:4318`).
   * Unset (the default): tracing is off, no span is made and no trace header is sent.
   */
  OTEL_EXPORTER_OTLP_ENDPOINT: env.optionalUrl(['http', 'https']),
  /** The share of new traces recorded when tracing is on (a trace the caller sampled stays sampled). */
  OTEL_TRACES_SAMPLER_ARG: env.ratio(1),
  SVC_ENVIRONMENT: z.enum(['sandbox', 'production']).default('sandbox'),
  INTERNAL_JWT_SECRET: z.string().min(32, 'at least 32 characters').default(DEVELOPMENT_JWT_SECRET),
});
