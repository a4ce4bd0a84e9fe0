import { existsSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import pg from 'pg';

/**
 * Where tests find PostgreSQL and RabbitMQ: containers from testcontainers when a Docker engine is
 * present, otherwise the machine's own services (TEST_DATABASE_URL, TEST_AMQP_URL or the defaults).
 */
export interface Infrastructure {
  postgresUrl: string;
  amqpUrl: string;
  source: 'testcontainers' | 'local';
  /** Runs `rabbitmqctl` against the broker (in its container, or the machine's own node). */
  rabbitmqctl?(args: string[]): Promise<void>;
  stop(): Promise<void>;
}

const LOCAL_POSTGRES = 'postgres://postgres@127.0.0.1:5432/postgres';
const LOCAL_AMQP = 'amqp://guest:guest@127.0.0.1:5672';

/** True when a Docker engine socket or DOCKER_HOST is configured. */
export function dockerAvailable(): boolean {
  if (process.env.TESTCONTAINERS_DISABLED === 'true') return false;
  return process.env.DOCKER_HOST !== undefined || existsSync('/var/run/docker.sock');
}

let shared: Promise<Infrastructure> | undefined;

/** Starts (once per test process) or finds the database server and broker. */
export function infrastructure(): Promise<Infrastructure> {
  shared ??= start();
  return shared;
}

async function start(): Promise<Infrastructure> {
  if (dockerAvailable()) {
    try {
      const { PostgreSqlContainer } = await import('@testcontainers/postgresql');
      const { RabbitMQContainer } = await import('@testcontainers/rabbitmq');
      const [postgres, rabbit] = await Promise.all([
        new PostgreSqlContainer('postgres:16-alpine').start(),
        new RabbitMQContainer('rabbitmq:3.13-alpine').start(),
      ]);
      return {
        postgresUrl: postgres.getConnectionUri(),
        amqpUrl: rabbit.getAmqpUrl(),
        source: 'testcontainers',
        rabbitmqctl: async (args) => {
          const result = await rabbit.exec(['rabbitmqctl', ...args]);
          if (result.exitCode !== 0) throw new Error(`rabbitmqctl ${args.join(' ')}: ${result.output}`);
        },
        stop: async () => {
          await Promise.all([postgres.stop(), rabbit.stop()]);
        },
      };
    } catch {
      // A socket without a working engine: fall back to the local services.
    }
  }
  return {
    postgresUrl: process.env.TEST_DATABASE_URL ?? LOCAL_POSTGRES,
    amqpUrl: process.env.TEST_AMQP_URL ?? LOCAL_AMQP,
    source: 'local',
    // The machine's own node is the one rabbitmqctl reaches by default; a broker named by
    // TEST_AMQP_URL may be another, so its test clusters share its vhost instead.
    ...(process.env.TEST_AMQP_URL === undefined
      ? {
          rabbitmqctl: async (args: string[]) => {
            await execFileAsync('rabbitmqctl', ['-q', ...args], { timeout: 60_000 });
          },
        }
      : {}),
    stop: async () => undefined,
  };
}

const execFileAsync = promisify(execFile);
let vhostsUnavailable = false;

/**
 * A RabbitMQ virtual host of its own for one test cluster: its exchange and queues are named like
 * every other cluster's (`svc.events`, `registry.box-stats.violations`), and on one vhost two
 * clusters (a parallel test file, a leftover process, a developer's `make up`) would be competing
 * consumers of each other's events, and a durable queue would carry one run's unconsumed events
 * into the next. `drop()` deletes the vhost with everything in it. Where vhosts cannot be made
 * (no rabbitmqctl), the broker's default vhost is shared, as before.
 */
export async function isolatedAmqpUrl(
  label = 'test',
): Promise<{ url: string; vhost?: string; drop(): Promise<void> }> {
  const infra = await infrastructure();
  const shared = { url: infra.amqpUrl, drop: async () => undefined };
  if (infra.rabbitmqctl === undefined || vhostsUnavailable) return shared;
  const url = new URL(infra.amqpUrl);
  const user = decodeURIComponent(url.username || 'guest');
  const vhost = `${label.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${uniqueSuffix()}`;
  try {
    await infra.rabbitmqctl(['add_vhost', vhost]);
    await infra.rabbitmqctl(['set_permissions', '-p', vhost, user, '.*', '.*', '.*']);
  } catch (err) {
    vhostsUnavailable = true;
    process.stderr.write(
      `test-kit: no RabbitMQ vhost per test cluster (${String(err)}); sharing the default vhost\n`,
    );
    await infra.rabbitmqctl(['delete_vhost', vhost]).catch(() => undefined);
    return shared;
  }
  url.pathname = `/${encodeURIComponent(vhost)}`;
  return {
    url: url.toString(),
    vhost,
    drop: async () => {
      await infra.rabbitmqctl?.(['delete_vhost', vhost]);
    },
  };
}

/** A short random suffix for names that must not collide between test runs. */
export function uniqueSuffix(): string {
  return randomBytes(5).toString('hex');
}

/** A brand-new, empty PostgreSQL database; `drop()` removes it. */
export async function freshPostgresDatabase(label = 'test'): Promise<{ url: string; drop(): Promise<void> }> {
  const infra = await infrastructure();
  const name = `t_${label.replace(/[^a-z0-9_]/gi, '_').toLowerCase()}_${uniqueSuffix()}`;
  const admin = new pg.Client({ connectionString: infra.postgresUrl });
  await admin.connect();
  await admin.query(`CREATE DATABASE ${name}`);
  await admin.end();
  const url = new URL(infra.postgresUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: infra.postgresUrl });
      await client.connect();
      await client.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await client.end();
    },
  };
}

/**
 * Closes a test database to connections and ends its sessions, as an operator's maintenance would
 * (`ALTER DATABASE … ALLOW_CONNECTIONS false`); `reopen()` lets connections in again. Only for a
 * database a test created on the test server.
 */
export async function refuseConnections(databaseUrl: string): Promise<{ reopen(): Promise<void> }> {
  const infra = await infrastructure();
  const name = decodeURIComponent(new URL(databaseUrl).pathname.slice(1));
  const admin = async (sql: string, params: unknown[] = []): Promise<void> => {
    const client = new pg.Client({ connectionString: infra.postgresUrl });
    await client.connect();
    try {
      await client.query(sql, params);
    } finally {
      await client.end();
    }
  };
  await admin(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS false`);
  await admin(
    'SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = $1 AND pid <> pg_backend_pid()',
    [name],
  );
  return { reopen: () => admin(`ALTER DATABASE "${name}" ALLOW_CONNECTIONS true`) };
}
