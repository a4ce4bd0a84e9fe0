import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { collectDefaultMetrics, Registry } from 'prom-client';
import { systemClock, type Clock } from '@svc/clock';
import type { Logger } from '@svc/logger';
import type { Database } from '@svc/storage';
import { accessLog } from './access-log.middleware';
import { errorHandler, notFound, tooLargeMessageOf } from './error.middleware';
import { exchangeKit, type ExchangeKit } from './exchange';
import {
  evaluateReadiness,
  mountHealthRoutes,
  type ReadinessCheck,
  type ReadinessReport,
} from './health.routes';
import { httpMetrics } from './http-metrics.middleware';
import { idempotency } from './idempotency.middleware';
import { internalAuth } from './internal-auth.middleware';
import { jsonBody } from './json-body.middleware';
import { startMetricsServer } from './metrics-server';
import { requestContext } from './request-context.middleware';
import { routeNamer, type NamedOperation } from './route-names';
import { serverSpan } from './server-span.middleware';
import { answerClientError, bytesOf, closeMetricsServer, drain, secureBy } from './http-server-parts';

export interface CreateServiceOptions {
  name: string;
  logger: Logger;
  internalJwtSecret: string;
  /** Default true: every route but /healthz, /readyz and /metrics needs a valid internal JWT. */
  requireInternalAuth?: boolean;
  /** Default '1mb' (docs/spec/contracts.md §2). */
  jsonLimit?: string;
  readiness?: ReadinessCheck[];
  /** Default: a new registry per service, with the default process metrics. */
  registry?: Registry;
  routes: (router: express.Router) => void;
  /**
   * Routes that run before the body is read (and so also for a request whose body is then
   * refused: 413, 415, malformed JSON). The gateway counts a keyed request here, so that every
   * answer to it carries X-RateLimit-*.
   */
  beforeBody?: (router: express.Router) => void;
  /** Middleware every answer passes through, `/healthz`, `/readyz` and `/metrics` included (the gateway's security headers). */
  everyAnswer?: (router: express.Router) => void;
  /** Reads the instant internal tokens are checked against; the real-time clock, not a sandbox offset. */
  clock?: Clock;
  /**
   * Makes every write with an Idempotency-Key run at most once per platform: the key commits with
   * the effect in `db` (which must have run `idempotencyMigrations`). Needs internal auth.
   */
  idempotency?: { db: Database; clock?: Clock };
  /**
   * The operations this service serves (`@svc/contracts`): a request that took one is named by
   * its id in `http_requests_total{route}`, the access log and its span. Default none (patterns).
   */
  operations?: readonly NamedOperation[];
  /**
   * Serve `/metrics` on this port (0: any free one) and not on the service's own: the gateway,
   * whose own port is public. Default: `/metrics` beside `/healthz` on the service's port.
   */
  metricsPort?: number;
  /**
   * Default: `requireInternalAuth`. Whether a caller's W3C `traceparent` becomes the parent of the
   * request's span (services behind the gateway) or is ignored (the public edge starts a trace).
   */
  trustTraceparent?: boolean;
  /**
   * express's `trust proxy`: which proxies' X-Forwarded-For names the client (`req.ip`). Default:
   * none (the socket's address), which every service behind the gateway keeps.
   */
  trustProxy?: TrustProxy;
  /**
   * The service's own path for requests it serves without express (the gateway's public API, ADR
   * 0036): given the exchange kit (request id, span, metrics, access line, error answers) and whether
   * a request came over https (`trust proxy` applied), it returns a handler that takes a request
   * (true) or leaves it to the express app (false, before touching it).
   */
  fastPath?: (kit: ExchangeKit, isSecure: (req: IncomingMessage) => boolean) => FastHandler;
}

/** Takes a request and answers it (true), or leaves it untouched for the express app (false). */
export type FastHandler = (req: IncomingMessage, res: ServerResponse) => boolean;

/** What express's `trust proxy` takes: true, a hop count, or addresses, CIDRs and `loopback`-like names. */
export type TrustProxy = boolean | number | string | string[];

export interface Service {
  app: express.Express;
  registry: Registry;
  /**
   * Starts serving; resolves with the bound port (use 0 for any free one) and a URL to reach it,
   * and, with `metricsPort`, the metrics listener's port and URL (same host).
   */
  listen(port: number, host?: string): Promise<Listening>;
  /** Marks not ready, stops accepting, drains in-flight requests up to `timeoutMs` (default 10 s), then force-closes. */
  stop(timeoutMs?: number): Promise<void>;
  /** Makes /readyz answer 503 so the load balancer stops sending traffic (first step of a shutdown). */
  markNotReady(): void;
  /** What `/readyz` would answer now (its checks run again). */
  readiness(): Promise<ReadinessReport>;
}

export interface Listening {
  port: number;
  url: string;
  /** Where `/metrics` is served when it has a port of its own. */
  metrics?: { port: number; url: string };
}

const DEFAULT_JSON_LIMIT = '1mb';
const DEFAULT_STOP_TIMEOUT_MS = 10_000;

/** An express app with the service defaults (request id, JSON limit, internal JWT, health, metrics, errors) and a graceful stop. */
export function createService(options: CreateServiceOptions): Service {
  const { logger } = options;
  const jsonLimit = options.jsonLimit ?? DEFAULT_JSON_LIMIT;
  const registry = options.registry ?? createServiceRegistry();
  let notReady = false;
  let stopping = false;
  let server: Server | undefined;
  let metricsServer: Server | undefined;
  let stopped: Promise<void> | undefined;

  const app = express();
  app.disable('x-powered-by');
  // ETags hash every JSON body and turn GETs into 304s that the gateway would have to relay; not wanted for an API.
  app.set('etag', false);
  if (options.trustProxy !== undefined) app.set('trust proxy', options.trustProxy);

  const requireInternalAuth = options.requireInternalAuth ?? true;
  const nameRoute = routeNamer(options.operations);
  app.use(requestContext(() => stopping));
  app.use(serverSpan(options.name, nameRoute, options.trustTraceparent ?? requireInternalAuth));
  app.use(httpMetrics(registry, nameRoute));
  // A logger below info (warn, silent) would drop every line: pino-http's per-request work is skipped.
  if (logger.isLevelEnabled('info')) app.use(accessLog(logger, nameRoute));
  if (options.everyAnswer !== undefined) {
    const first = express.Router();
    options.everyAnswer(first);
    app.use(first);
  }
  mountHealthRoutes(app, {
    readiness: options.readiness ?? [],
    registry,
    isNotReady: () => notReady,
    serveMetrics: options.metricsPort === undefined,
  });

  if (options.beforeBody !== undefined) {
    const early = express.Router();
    options.beforeBody(early);
    app.use(early);
  }
  app.use(jsonBody(jsonLimit));
  if (requireInternalAuth) {
    app.use(internalAuth(options.internalJwtSecret, options.clock ?? systemClock));
    if (options.idempotency !== undefined) {
      app.use(
        idempotency({
          db: options.idempotency.db,
          logger,
          clock: options.idempotency.clock ?? options.clock ?? systemClock,
          metrics: { registry, routeOf: nameRoute },
        }),
      );
    }
  }
  const router = express.Router();
  options.routes(router);
  app.use(router);
  app.use(notFound());
  app.use(errorHandler(logger, jsonLimit));

  const fast = options.fastPath?.(
    exchangeKit({
      service: options.name,
      registry,
      logger,
      tooLargeMessage: tooLargeMessageOf(jsonLimit),
      bodyLimitBytes: bytesOf(jsonLimit),
      isStopping: () => stopping,
    }),
    secureBy(app),
  );

  const markNotReady = (): void => {
    notReady = true;
  };

  const listenMetrics = async (host: string | undefined): Promise<Listening['metrics']> => {
    if (options.metricsPort === undefined) return undefined;
    const started = await startMetricsServer(registry, options.metricsPort, host);
    metricsServer = started.server;
    const url = `http://${urlHost(host)}:${started.port}/metrics`;
    logger.info({ port: started.port, url }, `${options.name} metrics listening`);
    return { port: started.port, url };
  };

  const listen = async (port: number, host?: string): Promise<Listening> => {
    if (server !== undefined) throw new Error(`${options.name} is already listening`);
    const srv = createServer(
      fast === undefined
        ? app
        : (req, res) => {
            if (!fast(req, res)) app(req, res);
          },
    );
    srv.on('clientError', answerClientError);
    server = srv;
    const bound = await new Promise<number>((resolve, reject) => {
      srv.once('error', reject);
      srv.listen(port, host, () => {
        srv.off('error', reject);
        resolve((srv.address() as AddressInfo).port);
      });
    });
    const url = `http://${urlHost(host)}:${bound}`;
    let metrics: Listening['metrics'];
    try {
      metrics = await listenMetrics(host);
    } catch (err) {
      await new Promise<void>((resolve) => srv.close(() => resolve()));
      throw err;
    }
    logger.info({ port: bound, url }, `${options.name} listening`);
    return metrics === undefined ? { port: bound, url } : { port: bound, url, metrics };
  };

  const stop = (timeoutMs = DEFAULT_STOP_TIMEOUT_MS): Promise<void> => {
    markNotReady();
    stopping = true;
    if (stopped === undefined) {
      const draining =
        server === undefined ? Promise.resolve() : drain(server, timeoutMs, logger, options.name);
      // Prometheus may scrape until the last request is served; then the metrics port goes too.
      stopped = draining.then(() => closeMetricsServer(metricsServer));
    }
    return stopped;
  };

  const readiness = (): Promise<ReadinessReport> => evaluateReadiness(options.readiness ?? [], notReady);
  return { app, registry, listen, stop, markNotReady, readiness };
}

/** A service's own metrics registry with the default process metrics (what `/metrics` serves). */
export function createServiceRegistry(): Registry {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** A host to put in a URL: wildcard binds are reached through loopback; IPv6 goes in brackets. */
function urlHost(host: string | undefined): string {
  if (host === undefined || host === '' || host === '0.0.0.0' || host === '::') return '127.0.0.1';
  return host.includes(':') ? `[${host}]` : host;
}
