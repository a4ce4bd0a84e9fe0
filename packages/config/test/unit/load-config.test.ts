import { z } from 'zod';
import { ConfigError, DEVELOPMENT_JWT_SECRET, baseEnvSchema, env, loadConfig } from '../../src';

const schema = baseEnvSchema.extend({
  PORT: env.port(8080),
  DATABASE_URL: env.url(['postgres', 'postgresql', 'pglite']),
  ADMIN_TOKEN: z.string().min(16, 'at least 16 characters'),
  LIMITS: z
    .string()
    .default('60,1000')
    .transform((v) => {
      const [perMinute, perDay] = v.split(',').map(Number);
      return { perMinute, perDay, tiers: ['basic', 'standard'] };
    }),
});

const GOOD = {
  DATABASE_URL: 'postgres://postgres@127.0.0.1:5432/gateway',
  ADMIN_TOKEN: 'a-token-of-sixteen-chars',
};

function configErrorOf(fn: () => unknown): ConfigError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error('expected a ConfigError, got none');
}

describe('loadConfig', () => {
  it('when the environment is valid, then the typed values come back, with defaults for what is unset', () => {
    const config = loadConfig(schema, GOOD);

    expect(config).toEqual({
      NODE_ENV: 'development',
      LOG_LEVEL: 'info',
      // Tracing is off unless a collector is named; when on, every new trace is recorded.
      OTEL_TRACES_SAMPLER_ARG: 1,
      SVC_ENVIRONMENT: 'sandbox',
      INTERNAL_JWT_SECRET: expect.any(String),
      PORT: 8080,
      DATABASE_URL: GOOD.DATABASE_URL,
      ADMIN_TOKEN: GOOD.ADMIN_TOKEN,
      LIMITS: { perMinute: 60, perDay: 1000, tiers: ['basic', 'standard'] },
    });
  });

  it('when no OTLP endpoint is set (or it is empty), then tracing has no endpoint: it stays off', () => {
    expect(loadConfig(schema, GOOD).OTEL_EXPORTER_OTLP_ENDPOINT).toBeUndefined();
    expect(
      loadConfig(schema, { ...GOOD, OTEL_EXPORTER_OTLP_ENDPOINT: '' }).OTEL_EXPORTER_OTLP_ENDPOINT,
    ).toBeUndefined();
  });

  it('when an OTLP endpoint and a sampling share are set, then they come back; a bad one is named', () => {
    const config = loadConfig(schema, {
      ...GOOD,
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://otel-collector:4318',
      OTEL_TRACES_SAMPLER_ARG: '0.25',
    });
    expect(config.OTEL_EXPORTER_OTLP_ENDPOINT).toBe('http://otel-collector:4318');
    expect(config.OTEL_TRACES_SAMPLER_ARG).toBe(0.25);
    expect(() => loadConfig(schema, { ...GOOD, OTEL_EXPORTER_OTLP_ENDPOINT: 'grpc://x:4317' })).toThrow(
      /OTEL_EXPORTER_OTLP_ENDPOINT/,
    );
    expect(() => loadConfig(schema, { ...GOOD, OTEL_TRACES_SAMPLER_ARG: '2' })).toThrow(
      /OTEL_TRACES_SAMPLER_ARG/,
    );
  });

  it('when values are given as strings, then they come back coerced to their types', () => {
    const config = loadConfig(schema, { ...GOOD, PORT: '9090', NODE_ENV: 'production', LIMITS: '5,50' });

    expect(config.PORT).toBe(9090);
    expect(config.NODE_ENV).toBe('production');
    expect(config.LIMITS.perDay).toBe(50);
  });

  it('when the config is loaded, then it and everything inside it is frozen', () => {
    const config = loadConfig(schema, GOOD);

    expect(Object.isFrozen(config)).toBe(true);
    expect(Object.isFrozen(config.LIMITS)).toBe(true);
    expect(Object.isFrozen(config.LIMITS.tiers)).toBe(true);
    expect(() => {
      (config as { PORT: number }).PORT = 1;
    }).toThrow(TypeError);
    expect(() => (config.LIMITS.tiers as string[]).push('enterprise')).toThrow(TypeError);
  });

  it('when keys the schema does not know are in the environment, then they are left out of the config', () => {
    const config = loadConfig(schema, { ...GOOD, PATH: '/usr/bin', HOME: '/root' });

    expect(config).not.toHaveProperty('PATH');
    expect(config).not.toHaveProperty('HOME');
  });

  it('when one key is bad, then a ConfigError names that key and why', () => {
    const err = configErrorOf(() => loadConfig(schema, { ...GOOD, ADMIN_TOKEN: 'short' }));

    expect(err.name).toBe('ConfigError');
    expect(err.problems).toEqual([{ key: 'ADMIN_TOKEN', message: 'at least 16 characters' }]);
    expect(err.message).toBe('Invalid configuration: ADMIN_TOKEN: at least 16 characters');
  });

  it('when two keys are bad, then both are named, not only the first', () => {
    const err = configErrorOf(() =>
      loadConfig(schema, { ...GOOD, PORT: '99999', DATABASE_URL: 'mysql://db/x' }),
    );

    expect(err.problems.map((p) => p.key).sort()).toEqual(['DATABASE_URL', 'PORT']);
    expect(err.message).toContain('PORT: ');
    expect(err.message).toContain('DATABASE_URL: expected a postgres or postgresql or pglite URL');
  });

  it('when every kind of key is bad or missing at once, then each one is named', () => {
    const err = configErrorOf(() =>
      loadConfig(schema, {
        NODE_ENV: 'staging',
        LOG_LEVEL: 'loud',
        SVC_ENVIRONMENT: 'live',
        INTERNAL_JWT_SECRET: 'x',
      }),
    );

    expect(err.problems.map((p) => p.key).sort()).toEqual([
      'ADMIN_TOKEN',
      'DATABASE_URL',
      'INTERNAL_JWT_SECRET',
      'LOG_LEVEL',
      'NODE_ENV',
      'SVC_ENVIRONMENT',
    ]);
  });

  it('when no environment is passed, then process.env is read', () => {
    const key = 'SVC_CONFIG_TEST_VALUE';
    process.env[key] = '1234';
    try {
      expect(loadConfig(z.object({ [key]: env.int(0) }))[key]).toBe(1234);
    } finally {
      delete process.env[key];
    }
  });
});

describe('baseEnvSchema', () => {
  it('when nothing is set, then the defaults are development, info, sandbox and the development secret', () => {
    const config = loadConfig(baseEnvSchema, {});

    expect(config.NODE_ENV).toBe('development');
    expect(config.LOG_LEVEL).toBe('info');
    expect(config.SVC_ENVIRONMENT).toBe('sandbox');
    expect(config.INTERNAL_JWT_SECRET).toBe(DEVELOPMENT_JWT_SECRET);
    expect(DEVELOPMENT_JWT_SECRET.length).toBeGreaterThanOrEqual(32);
  });

  it('when the secret is shorter than 32 characters, then it is refused naming INTERNAL_JWT_SECRET', () => {
    expect(
      configErrorOf(() => loadConfig(baseEnvSchema, { INTERNAL_JWT_SECRET: 'too-short' })).problems,
    ).toEqual([{ key: 'INTERNAL_JWT_SECRET', message: 'at least 32 characters' }]);
  });

  it('when a production deployment sets its own secret, then it loads as production', () => {
    const config = loadConfig(baseEnvSchema, {
      SVC_ENVIRONMENT: 'production',
      INTERNAL_JWT_SECRET: 'a-production-secret-of-more-than-32-chars',
    });

    expect(config.SVC_ENVIRONMENT).toBe('production');
    expect(config.INTERNAL_JWT_SECRET).toBe('a-production-secret-of-more-than-32-chars');
  });

  it('when a production deployment leaves the secret unset or sets the public default, then it is refused', () => {
    for (const env of [
      { SVC_ENVIRONMENT: 'production' },
      { SVC_ENVIRONMENT: 'production', INTERNAL_JWT_SECRET: DEVELOPMENT_JWT_SECRET },
    ]) {
      expect(configErrorOf(() => loadConfig(baseEnvSchema, env)).problems).toEqual([
        { key: 'INTERNAL_JWT_SECRET', message: expect.stringContaining('must be set in production') },
      ]);
    }
  });

  it('when LOG_LEVEL is silent, then it is accepted (tests run quiet)', () => {
    expect(loadConfig(baseEnvSchema, { LOG_LEVEL: 'silent' }).LOG_LEVEL).toBe('silent');
  });
});
