import type { z } from 'zod';
import { loadConfig, type baseEnvSchema } from '@svc/config';
import { createLogger } from '@svc/logger';
import { runUntilSignalled } from '@svc/service-kit';
import { startTelemetry } from '@svc/telemetry';
import { embeddedEnv, embeddedService, type EmbeddedDeps, type EmbeddedService } from './embedded-service';
import type { StartOverrides } from './start-domain-service';
import type { HttpStartOverrides } from './start-http-service';

/** The settings a descriptor's schema must yield (baseEnvSchema of @svc/config has them). */
type BaseConfig = Pick<
  z.output<typeof baseEnvSchema>,
  'LOG_LEVEL' | 'OTEL_EXPORTER_OTLP_ENDPOINT' | 'OTEL_TRACES_SAMPLER_ARG'
>;

/**
 * One service's start-up, declared once (in its `start.ts`): its `main.ts` (runServiceMain), its
 * embedded form (embeddedServiceOf) and its test harness (startFromEnv) all start it from here.
 */
export interface ServiceDescriptor<
  Schema extends z.ZodType<BaseConfig> = z.ZodType<BaseConfig>,
  Overrides = StartOverrides,
  Running extends { url: string; stop(): Promise<void> } = { url: string; stop(): Promise<void> },
> {
  name: string;
  /** Its `<NAME>_URL`: on the gateway, and for the services started after it in the embedded default. */
  urlVariable: string;
  /** The service's environment (its `config.ts`). */
  configSchema: Schema;
  start(config: Readonly<z.output<Schema>>, overrides?: Overrides): Promise<Running>;
  /** The embedded default: what its environment adds (neighbours' URLs) and what it hands in besides db, bus and logger. */
  embedded?(deps: EmbeddedDeps): { env?: Record<string, string | undefined>; overrides?: Overrides };
}

/** Declares a service's descriptor (an identity function that keeps its types). */
export function defineService<
  Schema extends z.ZodType<BaseConfig>,
  Overrides,
  Running extends { url: string; stop(): Promise<void> },
>(descriptor: ServiceDescriptor<Schema, Overrides, Running>): ServiceDescriptor<Schema, Overrides, Running> {
  return descriptor;
}

/** Loads the service's config from `env` (validated as at start-up) and starts it: what a test harness does. */
export function startFromEnv<
  Schema extends z.ZodType<BaseConfig>,
  Overrides,
  Running extends { url: string; stop(): Promise<void> },
>(
  descriptor: ServiceDescriptor<Schema, Overrides, Running>,
  env: Record<string, string | undefined>,
  overrides?: Overrides,
): Promise<Running> {
  return descriptor.start(loadConfig(descriptor.configSchema, env), overrides);
}

/**
 * A service's `main.ts`: the config from the process's environment, a logger at its LOG_LEVEL,
 * tracing when OTEL_EXPORTER_OTLP_ENDPOINT is set, start, then run until SIGTERM/SIGINT (the
 * spans still buffered are exported last). A start that fails prints the error and exits with 1.
 */
export function runServiceMain<
  Schema extends z.ZodType<BaseConfig>,
  Running extends { url: string; stop(): Promise<void> },
>(descriptor: ServiceDescriptor<Schema, HttpStartOverrides, Running>): void {
  const main = async (): Promise<void> => {
    const config = loadConfig(descriptor.configSchema);
    const logger = createLogger(descriptor.name, { level: config.LOG_LEVEL });
    const telemetry = startTelemetry({
      serviceName: descriptor.name,
      otlpEndpoint: config.OTEL_EXPORTER_OTLP_ENDPOINT,
      sampleRatio: config.OTEL_TRACES_SAMPLER_ARG,
    });
    const running = await descriptor.start(config, { logger });
    runUntilSignalled(
      [
        { name: descriptor.name, stop: running.stop },
        { name: 'telemetry', stop: () => telemetry.shutdown() },
      ],
      logger,
    );
  };
  main().catch((err: unknown) => {
    console.error(err);
    process.exit(1);
  });
}

/**
 * A service inside the embedded default, from its descriptor: PGlite files under DATA_DIR/<name>,
 * the shared in-process bus, a loopback port, the launcher's log level and the settings it passes on.
 */
export function embeddedServiceOf<
  Schema extends z.ZodType<BaseConfig>,
  Running extends { url: string; stop(): Promise<void> },
>(descriptor: ServiceDescriptor<Schema, StartOverrides, Running>): EmbeddedService {
  return embeddedService({
    name: descriptor.name,
    urlVariable: descriptor.urlVariable,
    start: (deps, db) => {
      const own = descriptor.embedded?.(deps) ?? {};
      const config = loadConfig(descriptor.configSchema, { ...deps.env, ...embeddedEnv(deps), ...own.env });
      return descriptor.start(config, {
        ...own.overrides,
        db,
        bus: deps.bus,
        logger: createLogger(descriptor.name, { level: deps.logger.level }),
      });
    },
  });
}
