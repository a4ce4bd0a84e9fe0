import type { ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import path from 'node:path';
import pg from 'pg';
import {
  haproxyBalancer,
  onAbnormalExit,
  startCluster,
  startPrivatePostgres,
  startBlackholeProxyProcess,
  startPrivateRabbitMQ,
  stablePort,
  type BlackholeProxyProcess,
  type PrivatePostgres,
  type PrivateRabbitMQ,
  type RunningCluster,
} from '@svc/test-kit';
import { databaseName, SERVICES } from './inside-checks';

// The cluster mode on infrastructure of the suite's own: a PostgreSQL server and a RabbitMQ
// node started for the suite on other ports, so faults can be injected into them without
// touching the machine's. Every process is watched: an exit the suite did not cause is a death.

/** A process that exited without the suite killing or stopping it. */
export interface Death {
  name: string;
  code: number | null;
  signal: string | null;
  at: number;
  /** Its last lines of output. */
  output: string[];
}

export interface FaultCluster {
  postgres: PrivatePostgres;
  broker: PrivateRabbitMQ;
  cluster: RunningCluster;
  databasePrefix: string;
  deaths: Death[];
  /** Every process's warnings and errors that name `requestId`, as `[process] line`. */
  warningsAbout(requestId: string): string[];
  /** kill -9 by pid (an intended death). */
  kill(name: string): void;
  /** Starts a process again (same port and settings) and waits until it is ready. */
  restart(name: string): Promise<void>;
  /**
   * Stops a process as an orchestrator would: out of the balancer first (a terminating pod leaves
   * the Service's endpoints while its preStop sleep keeps it serving), then SIGTERM (SIGKILL after
   * 10 s): an intended exit.
   */
  stopGracefully(name: string): Promise<void>;
  /**
   * A process named in `cutOff` loses its database or the broker: its connections hang, nothing
   * is closed, new ones hang too (a partition, a dead NAT entry), while the rest of the cluster
   * reaches both.
   */
  cutOff(name: string, from: Link): Promise<void>;
  /** New connections of the process flow again; the ones that were cut stay dead. */
  reconnect(name: string, from: Link): Promise<void>;
  /** SIGSTOP / SIGCONT by pid. */
  pause(name: string): void;
  resume(name: string): void;
  /** Restarts every process that is not running; returns their names. */
  reviveDead(): Promise<string[]>;
  /** Runs SQL on the suite's server (the `postgres` database unless named). */
  admin(sql: string, database?: string): Promise<pg.QueryResult>;
  /** The database of a service. */
  databaseOf(service: string): string;
  teardown(): Promise<void>;
}

const OUTPUT_LINES = 40;
/** The pause between leaving the balancer and SIGTERM (Kubernetes: the preStop sleep, 5 s in k8s/). */
const PRE_STOP_MS = 1000;
const STDERR_LINES = 200;
/** Warnings and errors kept per process, to explain a 5xx answer by its request id. */
const WARNING_LINES = 2000;
// A service's log line at pino's warn (40) or error (50) level.
const WARNING = /"level":(?:40|50),/;

export type Link = 'database' | 'broker';

export interface FaultClusterOptions {
  /** Processes of every service, gateway included, behind HAProxy (default 1: no balancer). */
  replicas?: number;
  /** Processes (e.g. `licensing-2`) whose database and broker links go through proxies the suite can cut. */
  cutOff?: string[];
}

/** The URL with its port replaced: the same server, reached through a proxy on loopback. */
function throughPort(url: string, port: number): string {
  const proxied = new URL(url);
  proxied.port = String(port);
  return proxied.toString();
}

export async function startFaultCluster(
  rootDir: string,
  env: Record<string, string>,
  options: FaultClusterOptions = {},
): Promise<FaultCluster> {
  const [postgres, broker] = await Promise.all([startPrivatePostgres(), startPrivateRabbitMQ()]);
  const deaths: Death[] = [];
  const intended = new WeakSet<ChildProcess>();
  const watched = new WeakSet<ChildProcess>();
  const output = new Map<string, string[]>();
  const warnings = new Map<string, string[]>();
  const databasePrefix = 'faults_';
  let cluster: RunningCluster | undefined;

  const watch = (name: string) => {
    const child = cluster?.processes.get(name)?.child;
    if (child === undefined || watched.has(child)) return;
    watched.add(child);
    const lines: string[] = [];
    // stderr is where Node writes an uncaught error and its whole stack: keep more of it, uncut.
    const errorLines: string[] = [];
    output.set(name, lines);
    const warned = warnings.get(name) ?? [];
    warnings.set(name, warned);
    const keeper =
      (into: string[], most: number, width: number) =>
      (chunk: Buffer): void => {
        for (const line of chunk.toString('utf8').split('\n')) {
          if (line === '') continue;
          into.push(line.slice(0, width));
          if (into.length > most) into.shift();
        }
      };
    // FAULTS_LOG_DIR keeps every line of every process, for a run someone means to read afterwards.
    const logDir = process.env.FAULTS_LOG_DIR;
    if (logDir !== undefined && logDir !== '') {
      const file = createWriteStream(path.join(logDir, `${name}.log`), { flags: 'a' });
      child.stdout?.pipe(file, { end: false });
      child.stderr?.pipe(file, { end: false });
      child.once('close', () => file.end());
    }
    child.stdout?.on('data', keeper(lines, OUTPUT_LINES, 600));
    child.stdout?.on('data', (chunk: Buffer) => {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (!WARNING.test(line)) continue;
        warned.push(line.slice(0, 2000));
        if (warned.length > WARNING_LINES) warned.shift();
      }
    });
    child.stderr?.on('data', keeper(errorLines, STDERR_LINES, 4000));
    // 'close', not 'exit': by then its last output (the crash) has been read.
    child.once('close', (code, signal) => {
      if (intended.has(child)) return;
      deaths.push({
        name,
        code,
        signal,
        at: performance.now(),
        output: [...lines, ...(errorLines.length > 0 ? ['--- stderr ---', ...errorLines] : [])],
      });
    });
  };

  // One proxy per cut-off process and link, in front of the suite's own PostgreSQL and RabbitMQ,
  // each in a process of its own: the links' bytes never wait for this process's event loop.
  const proxies = new Map<string, BlackholeProxyProcess>();
  const proxyOf = (name: string, link: Link): BlackholeProxyProcess => {
    const proxy = proxies.get(`${name}/${link}`);
    if (proxy === undefined) throw new Error(`${name} was not started with a ${link} link that can be cut`);
    return proxy;
  };
  const closeProxies = () => Promise.all([...proxies.values()].map((proxy) => proxy.close()));
  for (const name of options.cutOff ?? []) {
    for (const [link, url] of [
      ['database', postgres.url],
      ['broker', broker.url],
    ] as const) {
      const target = new URL(url);
      proxies.set(
        `${name}/${link}`,
        await startBlackholeProxyProcess({ host: target.hostname, port: Number(target.port) }),
      );
    }
  }
  const envOf = (name: string, processEnv: NodeJS.ProcessEnv): NodeJS.ProcessEnv => {
    if (!(options.cutOff ?? []).includes(name)) return processEnv;
    const { DATABASE_URL, AMQP_URL } = processEnv;
    if (DATABASE_URL === undefined || AMQP_URL === undefined) throw new Error(`${name} has no links to cut`);
    return {
      ...processEnv,
      DATABASE_URL: throughPort(DATABASE_URL, proxyOf(name, 'database').port),
      AMQP_URL: throughPort(AMQP_URL, proxyOf(name, 'broker').port),
    };
  };

  try {
    const ports: Record<string, number> = {};
    for (const name of SERVICES) ports[name] = await stablePort();
    const start = () =>
      startCluster({
        rootDir,
        postgresUrl: postgres.url,
        amqpUrl: broker.url,
        databasePrefix,
        ports,
        output: 'silent',
        env,
        // The suite is the supervisor here: it must see every death (an unintended one fails the
        // check) and restart what it killed itself; a supervisor restarting behind it would hide deaths.
        supervise: false,
        envOf,
        ...((options.replicas ?? 1) > 1
          ? { replicas: options.replicas, balancer: haproxyBalancer(), replicaPort: stablePort }
          : {}),
      });
    // Seven processes migrating and loading at once on two shared cores can miss the 30 s a start
    // is given (2026-11-29, load average 10): the second start finds the databases migrated.
    cluster = await start().catch(async (err: unknown) => {
      if (!/was not ready within/.test((err as Error).message)) throw err;
      process.stdout.write(
        `[faults] the cluster did not start (${(err as Error).message}); starting it again\n`,
      );
      return start();
    });
  } catch (err) {
    await closeProxies();
    await Promise.all([postgres.teardown(), broker.teardown()]);
    throw err;
  }
  const running = cluster;
  for (const name of running.processes.keys()) watch(name);
  // Interrupted before teardown: the service processes must not outlive the suite.
  const forget = onAbnormalExit(() => {
    for (const { child } of running.processes.values()) if (child.pid !== undefined) child.kill('SIGKILL');
  });

  const childOf = (name: string): ChildProcess => {
    const child = running.processes.get(name)?.child;
    if (child === undefined) throw new Error(`no process ${name}`);
    return child;
  };
  const pidOf = (name: string): number => {
    const pid = childOf(name).pid;
    if (pid === undefined) throw new Error(`${name} has no pid`);
    return pid;
  };
  const isRunning = (name: string) => {
    const child = running.processes.get(name)?.child;
    return child !== undefined && child.exitCode === null && child.signalCode === null;
  };

  return {
    postgres,
    broker,
    cluster: running,
    databasePrefix,
    deaths,
    warningsAbout: (requestId) =>
      [...warnings].flatMap(([name, lines]) =>
        lines.filter((line) => line.includes(`"${requestId}"`)).map((line) => `[${name}] ${line}`),
      ),
    kill: (name) => {
      const child = childOf(name);
      intended.add(child);
      process.kill(pidOf(name), 'SIGKILL');
    },
    restart: async (name) => {
      const child = childOf(name);
      if (child.exitCode === null && child.signalCode === null)
        await new Promise<void>((resolve) => child.once('exit', () => resolve()));
      await running.startProcess(name);
      watch(name);
      // Ready is not enough: as a rollout waits for a new pod to be in the Service's endpoints.
      await running.balancerServes(name);
    },
    stopGracefully: async (name) => {
      intended.add(childOf(name));
      await running.balancerTakesOut(name);
      // Requests already sent to it are answered; the balancer's in-flight ones reach it in this time.
      await new Promise((resolve) => setTimeout(resolve, PRE_STOP_MS));
      await running.stopProcess(name);
    },
    cutOff: (name, from) => proxyOf(name, from).blackhole(),
    reconnect: (name, from) => proxyOf(name, from).heal(),
    pause: (name) => process.kill(pidOf(name), 'SIGSTOP'),
    resume: (name) => process.kill(pidOf(name), 'SIGCONT'),
    reviveDead: async () => {
      const dead = [...running.processes.keys()].filter((name) => !isRunning(name));
      for (const name of dead) {
        await running.startProcess(name);
        watch(name);
      }
      return dead;
    },
    admin: async (sql, database) => {
      const url = new URL(postgres.url);
      if (database !== undefined) url.pathname = `/${database}`;
      const client = new pg.Client({ connectionString: url.toString(), connectionTimeoutMillis: 5000 });
      await client.connect();
      try {
        return await client.query(sql);
      } finally {
        await client.end().catch(() => undefined);
      }
    },
    databaseOf: (service) => databaseName(databasePrefix, service),
    teardown: async () => {
      forget();
      for (const name of running.processes.keys()) {
        const child = running.processes.get(name)?.child;
        if (child === undefined) continue;
        intended.add(child);
        // A paused process cannot stop: let it run first.
        if (isRunning(name)) process.kill(pidOf(name), 'SIGCONT');
      }
      await running.stop().catch(() => undefined);
      await closeProxies();
      await Promise.all([postgres.teardown(), broker.teardown()]);
    },
  };
}
