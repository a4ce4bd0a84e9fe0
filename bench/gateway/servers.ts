/**
 * The targets of the gateway benchmark, all on 127.0.0.1 and a free port: a bare express app, a
 * trivial service built with createService, the gateway in front of it, and the floor of any
 * gateway written in Node: a bare proxy in front of the same service.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import express from 'express';
import { Pool } from 'undici';
import { gatewayConfigSchema, startGateway, type Route, type RunningGateway } from '@svc/gateway';
import type { Logger } from '@svc/logger';
import { createService, type InternalClaims } from '@svc/service-kit';
import { freshPostgresDatabase } from '@svc/test-kit';

export const ADMIN_TOKEN = 'bench-admin-token-0123456789';
export const JWT_SECRET = 'bench-internal-secret-0123456789-abcdef';
export const PING_PATH = '/v1/svc/ping';
export const PING_BODY = JSON.stringify({ data: { pong: true } });
export const HELLO_PATH = '/hello';
export const HELLO_BODY = JSON.stringify({ ok: true });

/** The one route the gateway knows: the trivial service plays "registry". */
export const PING_ROUTES: Route[] = [{ id: 'ping', method: 'GET', path: PING_PATH, service: 'registry' }];

export interface Running {
  url: string;
  stop(): Promise<void>;
}

/** GET /hello → {"ok":true}, nothing else: the floor of what express costs. */
export async function startBareExpress(): Promise<Running> {
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.get(HELLO_PATH, (_req, res) => {
    res.json({ ok: true });
  });
  return listenLocally(createServer(app));
}

/** `server` on 127.0.0.1 and a free port; stop() closes it and every connection it holds. */
async function listenLocally(server: Server): Promise<Running> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => resolve());
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** A service with the service-kit defaults (internal JWT required): GET /v1/svc/ping → {"data":{"pong":true}}. */
export async function startPingService(logger: Logger): Promise<Running> {
  const service = createService({
    name: 'bench-ping',
    logger,
    internalJwtSecret: JWT_SECRET,
    routes: (router) => {
      router.get(PING_PATH, (_req, res) => {
        res.json({ data: { pong: true } });
      });
    },
  });
  const { url } = await service.listen(0, '127.0.0.1');
  return { url, stop: () => service.stop() };
}

/**
 * The least a gateway in Node can do: node:http in, undici's pool out (as the gateway's upstream
 * client), one fixed internal token, the answer's bytes passed back. No key, no count, no route
 * table, no metrics, no logs, no express: what no gateway can get under, on the same core.
 */
export async function startBareProxy(upstreamUrl: string, internalToken: string): Promise<Running> {
  const pool = new Pool(upstreamUrl, { connections: 64 });
  const authorization = `Bearer ${internalToken}`;
  const server = createServer((req, res) => {
    req.resume();
    pool
      .request({ method: 'GET', path: req.url ?? '/', headers: { authorization } })
      .then(async ({ statusCode, headers, body }) => {
        const bytes = Buffer.from(await body.arrayBuffer());
        res.writeHead(statusCode, {
          'content-type': String(headers['content-type'] ?? 'application/json'),
          'content-length': bytes.length,
        });
        res.end(bytes);
      })
      .catch(() => {
        res.writeHead(502).end();
      });
  });
  const listening = await listenLocally(server);
  return {
    url: listening.url,
    stop: async () => {
      await listening.stop();
      await pool.close();
    },
  };
}

export interface BenchGateway extends Running {
  running: RunningGateway;
  /** The key of an enterprise platform whose limits the benchmark never reaches. */
  key: string;
  /** The claims the gateway sends downstream for that key (used to sign the direct calls). */
  claims: InternalClaims;
}

async function admin(url: string, path: string, body: unknown): Promise<any> {
  const response = await fetch(url + path, {
    method: 'POST',
    headers: { authorization: `Bearer ${ADMIN_TOKEN}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  const parsed: any = await response.json();
  if (response.status !== 201) {
    throw new Error(`POST ${path} answered ${response.status}: ${JSON.stringify(parsed)}`);
  }
  return parsed.data;
}

/**
 * The gateway on a brand-new PostgreSQL database, routing PING_PATH to `registryUrl`, with an
 * enterprise platform (perMinute 1 000 000, perDay 1 000 000 000) and one key of it.
 * stop() stops the gateway and drops the database.
 */
export async function startBenchGateway(registryUrl: string, logger: Logger): Promise<BenchGateway> {
  const database = await freshPostgresDatabase('bench_gateway');
  let running: RunningGateway | undefined;
  const stop = async (): Promise<void> => {
    try {
      await running?.stop();
    } finally {
      await database.drop();
    }
  };
  try {
    const config = gatewayConfigSchema.parse({
      PORT: '0',
      METRICS_PORT: '0',
      HOST: '127.0.0.1',
      DATABASE_URL: database.url,
      ADMIN_TOKEN,
      INTERNAL_JWT_SECRET: JWT_SECRET,
      SVC_ENVIRONMENT: 'sandbox',
      LOG_LEVEL: 'silent',
      REGISTRY_URL: registryUrl,
    });
    running = await startGateway(config, { logger, routes: PING_ROUTES });
    const url = `http://127.0.0.1:${running.port}`;
    const platform = await admin(url, '/admin/platforms', {
      name: 'Bench',
      plan: 'enterprise',
      limits: { perMinute: 1_000_000, perDay: 1_000_000_000 },
    });
    const issued = await admin(url, `/admin/platforms/${platform.id}/keys`, {});
    const claims: InternalClaims = {
      platformId: platform.id,
      environment: 'sandbox',
      keyId: issued.id,
      plan: 'enterprise',
    };
    return { url, running, key: issued.key, claims, stop };
  } catch (err) {
    await stop().catch(() => undefined);
    throw err;
  }
}
