import { ManualClock } from '@svc/clock';
import type { EventEnvelope } from '@svc/contracts/common';
import { newId } from '@svc/ids';
import { createLogger, type Logger } from '@svc/logger';
import { InProcessMessageBus } from '@svc/messaging';
import { signInternalToken, type InternalClaims } from '@svc/service-kit';
import type { Database } from '@svc/storage';
import { requestJson, type JsonReply } from './http';
import { freshPostgresDatabase } from './infrastructure';
import { waitFor } from './wait';

/** What every service's test harness starts from. */
export interface HarnessBase {
  databaseUrl: string;
  dropDatabase(): Promise<void>;
  bus: InProcessMessageBus;
  /** Every event of the service's own prefix delivered on the bus, in order. */
  delivered: EventEnvelope[];
  clock: ManualClock;
  logger: Logger;
  /** The environment a service under test starts with: port 0, loopback, its database, the secret. */
  env: Record<string, string>;
}

/** Where a harness's manual clock starts unless told otherwise. */
export const HARNESS_START = '2026-11-22T10:00:00.000Z';

export interface HarnessBaseOptions {
  jwtSecret: string;
  /** Where the manual clock starts (default HARNESS_START); ignored when `clock` is given. */
  start?: string | Date;
  /** A clock shared with another harness (two replicas on one timeline). */
  clock?: ManualClock;
  /** Another harness's database (a second replica): used as it is and not dropped by this one. */
  databaseUrl?: string;
  /** Every log line of the service (at debug and above) goes here, for tests of what is logged. */
  logs?: { write(line: string): void };
}

/**
 * A fresh PostgreSQL database (or the one given), an in-process bus recording `<service>.#`, a
 * manual clock at `start` (default 2026-11-22T10:00:00Z) and a silent logger.
 */
export async function startHarnessBase(service: string, options: HarnessBaseOptions): Promise<HarnessBase> {
  const database =
    options.databaseUrl === undefined
      ? await freshPostgresDatabase(service)
      : { url: options.databaseUrl, drop: async () => undefined };
  const logger =
    options.logs === undefined
      ? createLogger('test', { level: (process.env.HARNESS_LOG_LEVEL ?? 'silent') as 'silent' })
      : createLogger('test', { level: 'debug' }, options.logs);
  const bus = new InProcessMessageBus({ logger });
  const delivered: EventEnvelope[] = [];
  await bus.subscribe({
    queue: `test.${service}-events`,
    patterns: [`${service}.#`],
    handler: async (envelope) => {
      delivered.push(envelope);
    },
  });
  return {
    databaseUrl: database.url,
    dropDatabase: () => database.drop(),
    bus,
    delivered,
    clock: options.clock ?? new ManualClock(options.start ?? HARNESS_START),
    logger,
    env: {
      PORT: '0',
      // The gateway's metrics port (the other services serve /metrics on PORT and ignore it).
      METRICS_PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: database.url,
      INTERNAL_JWT_SECRET: options.jwtSecret,
      LOG_LEVEL: 'silent',
    },
  };
}

/** A caller of a service under test, holding an internal token as the gateway would mint it. */
export interface InternalClient {
  platformId: string;
  call(method: string, path: string, body?: unknown, headers?: Record<string, string>): Promise<JsonReply>;
}

/** A client calling `baseUrl` (read at each call when a function) with an internal token for `claims`. */
export function internalClient(
  baseUrl: string | (() => string),
  jwtSecret: string,
  claims: InternalClaims,
): InternalClient {
  const token = signInternalToken(jwtSecret, claims);
  const urlNow = typeof baseUrl === 'string' ? () => baseUrl : baseUrl;
  return {
    platformId: claims.platformId,
    call: (method, path, body, headers) => requestJson(urlNow(), token, method, path, body, headers),
  };
}

/** The claims of a new platform's sandbox key on the basic plan (override any of them). */
export function platformClaims(overrides: Partial<InternalClaims> = {}): InternalClaims {
  return {
    platformId: newId('plat'),
    environment: 'sandbox',
    keyId: newId('key'),
    plan: 'basic',
    role: 'platform',
    ...overrides,
  };
}

/** The operator's claims (what the gateway sends for /admin). */
export const OPERATOR_CLAIMS: InternalClaims = {
  platformId: 'operator',
  environment: 'sandbox',
  keyId: 'operator',
  plan: 'enterprise',
  role: 'operator',
};

/** What every service's start function returns and a harness needs of it. */
export interface RunningUnderTest {
  url: string;
  db: Database;
  stop(): Promise<void>;
}

/** The parts a harness hands to the service's start function (its overrides). */
export interface HarnessParts {
  bus: InProcessMessageBus;
  clock: ManualClock;
  logger: Logger;
}

export interface ServiceHarnessOptions<Running extends RunningUnderTest> extends HarnessBaseOptions {
  /** The service's name: its database's label and the prefix of the events kept in `delivered`. */
  service: string;
  /** Loads the config from `env` (the harness's own plus `options.env`) and starts the service. */
  startService(env: Record<string, string>, parts: HarnessParts): Promise<Running>;
  /** The service's own settings (job intervals at 0, neighbours' URLs, …). */
  env?: Record<string, string>;
  /** Stopped after the service and before the database goes (fake neighbours, receivers). */
  alsoStop?: Array<() => Promise<void>>;
}

/** One service on its own database, in-process bus and manual clock, with the callers tests need. */
export interface ServiceHarness<Running extends RunningUnderTest> extends HarnessBase {
  /** The service as started (a new one after `restart`). */
  readonly running: Running;
  /** A caller holding an internal token: a new sandbox platform on the basic plan unless `claims` say otherwise. */
  platform(claims?: Partial<InternalClaims>): InternalClient;
  /** The operator API's caller. */
  operator(): InternalClient;
  /** A call without a token, or with `token` and raw `headers`. */
  raw(
    method: string,
    path: string,
    options?: { token?: string; headers?: Record<string, string>; body?: unknown },
  ): Promise<JsonReply>;
  /** The events written to the outbox, in order. */
  outbox(): Promise<EventEnvelope[]>;
  /** The delivered events of `type` (matching `match`), in order. */
  eventsOf(type: string, match?: (e: EventEnvelope) => boolean): EventEnvelope[];
  /** Waits until the relay has delivered an event of `type` matching `match`. */
  waitForEvent(type: string, match?: (e: EventEnvelope) => boolean): Promise<EventEnvelope>;
  /** Publishes an event as another service would; resolves once every queue has handled it. */
  publish(envelope: EventEnvelope): Promise<void>;
  /** Stops the service and starts it again on the same database, bus and clock. */
  restart(): Promise<void>;
  stop(): Promise<void>;
}

/**
 * The one way a service's test harness starts its service: a fresh database, the in-process bus,
 * a manual clock, a silent logger, then `startService(env, parts)`. Each service's harness adds
 * only what is its own (builders of its events and bodies) to what this returns.
 */
export async function startServiceHarness<Running extends RunningUnderTest>(
  options: ServiceHarnessOptions<Running>,
): Promise<ServiceHarness<Running>> {
  const base = await startHarnessBase(options.service, options);
  const env = { ...base.env, ...options.env };
  const parts: HarnessParts = { bus: base.bus, clock: base.clock, logger: base.logger };
  let running: Running;
  try {
    running = await options.startService(env, parts);
  } catch (err) {
    for (const stop of options.alsoStop ?? []) await stop();
    await base.bus.close();
    await base.dropDatabase();
    throw err;
  }
  // The URL is read at each call: a restart may bring the service back on another port.
  const client = (claims: InternalClaims) => internalClient(() => running.url, options.jwtSecret, claims);
  const eventsOf = (type: string, match: (e: EventEnvelope) => boolean = () => true) =>
    base.delivered.filter((e) => e.type === type && match(e));
  return {
    ...base,
    get running() {
      return running;
    },
    platform: (claims = {}) => client(platformClaims(claims)),
    operator: () => client(OPERATOR_CLAIMS),
    raw: (method, path, { token, headers, body } = {}) =>
      requestJson(running.url, token, method, path, body, headers),
    outbox: async () => {
      const { rows } = await running.db.query<{ payload: EventEnvelope }>(
        'SELECT payload FROM outbox ORDER BY id',
      );
      return rows.map((row) => row.payload);
    },
    eventsOf,
    waitForEvent: (type, match) =>
      waitFor(() => eventsOf(type, match)[0], { what: `event ${type}`, timeoutMs: 5000 }),
    publish: (envelope) => base.bus.publish(envelope),
    restart: async () => {
      await running.stop();
      running = await options.startService(env, parts);
    },
    stop: async () => {
      await running.stop();
      for (const stop of options.alsoStop ?? []) await stop();
      await base.bus.close();
      await base.dropDatabase();
    },
  };
}
