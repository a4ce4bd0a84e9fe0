import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { createServer } from 'node:net';
import path from 'node:path';
import { randomBytes } from 'node:crypto';

/**
 * Node's flags for a service process, as deploy/Dockerfile's CMD gives them for Docker, compose and
 * Kubernetes. The young generation starts at the size V8 would grow it to under load
 * (16 MB semi-spaces, V8's own maximum on 64-bit): it otherwise grows in steps as the allocation
 * rate rises, minutes into a run, and a replica's memory then climbs by 10 to 20 MB with nothing
 * kept (issue #34's soak). A fixed size makes a pod's footprint its steady state from the start.
 */
export const SERVICE_NODE_FLAGS: readonly string[] = ['--min-semi-space-size=16'];

/**
 * `make test` measures the code these child processes run too (docs/adr/0040): when
 * SVC_CHILD_V8_COVERAGE names a directory, each child started here writes V8's coverage into it
 * (NODE_V8_COVERAGE) on exit, and scripts/coverage-merge.mjs maps it back to src/. Jest's own
 * processes are left out: their coverage is jest's, of the TypeScript it transforms.
 */
export function childCoverageEnv(): NodeJS.ProcessEnv {
  const dir = process.env.SVC_CHILD_V8_COVERAGE;
  return dir === undefined || dir === '' ? {} : { NODE_V8_COVERAGE: path.resolve(dir) };
}

/** The port each service takes in cluster mode when ports are fixed (`make up`). */
export const SERVICE_PORTS: Record<string, number> = {
  gateway: 8080,
  registry: 8081,
  detection: 8082,
  licensing: 8083,
  enforcement: 8084,
  billing: 8085,
  'webhook-dispatcher': 8086,
};
/** The gateway's metrics port in cluster mode when ports are fixed (its METRICS_PORT default). */
export const GATEWAY_METRICS_PORT = 9464;

export interface ClusterOptions {
  /** The repository root (where services/ is). */
  rootDir: string;
  postgresUrl: string;
  amqpUrl: string;
  /** Domain services to start; default: every built service (services/<name>/dist/main.js). */
  services?: string[];
  /** Prefix of each service's database name (tests use a random one). */
  databasePrefix?: string;
  /** Fixed ports from SERVICE_PORTS (make up) or free ones (tests). */
  fixedPorts?: boolean;
  /** Ports chosen by the caller, by process name (gateway included); the others as above. */
  ports?: Record<string, number>;
  /** Extra environment for every process. */
  env?: Record<string, string>;
  adminToken?: string;
  bootstrapKey?: string;
  /** Where process output goes: prefixed to this process's stdout, or dropped. */
  output?: 'prefixed' | 'silent';
  /**
   * Default true: a process that exits without being asked (a crash, kill -9) is started again
   * after a backoff (0.5 s doubling to 30 s, back to 0.5 s once it has run 30 s), and logged.
   */
  supervise?: boolean;
  /** Called on each supervisor event (also written to stdout when output is prefixed). */
  onSupervisorEvent?: (event: SupervisorEvent) => void;
  /**
   * Gateway replicas on the one gateway database (default 1): the others are processes
   * `gateway-2`, `gateway-3`… on ports of their own, listed in `gatewayUrls`.
   */
  gatewayReplicas?: number;
  /**
   * Processes of every service, the gateway included (default 1): `registry`, `registry-2`… With
   * more than one, a `balancer` stands in front of each service, as a Kubernetes Service does.
   */
  replicas?: number;
  /**
   * A load balancer listening on each service's port (the URL every other process and the
   * caller use) and spreading its requests over the service's replicas, each on a port of its own.
   */
  balancer?: ClusterBalancer;
  /** Picks the replicas' ports (default freePort; the fault suite's stable ports survive restarts). */
  replicaPort?: () => Promise<number>;
  /**
   * The environment of one process, as built (its name, e.g. `licensing-2`): what it returns is
   * what the process gets, e.g. its DATABASE_URL or AMQP_URL through a proxy of the caller's.
   */
  envOf?: (name: string, env: NodeJS.ProcessEnv) => NodeJS.ProcessEnv;
}

/** One service as the balancer sees it. */
export interface BalancedService {
  service: string;
  /** Where the balancer listens for it: its URL for everyone else. */
  frontPort: number;
  /** Its replicas' own ports. */
  backendPorts: number[];
}

/** Started before the processes (it health-checks them), stopped after them. */
export interface ClusterBalancer {
  start(services: BalancedService[]): Promise<void>;
  /** Sends `service`'s traffic to the replica on `backendPort` again, and resolves once it does. */
  waitUntilServing(service: string, backendPort: number, timeoutMs?: number): Promise<void>;
  /** Sends no more requests to the replica on `backendPort` (a terminating pod out of the Service). */
  takeOut(service: string, backendPort: number): Promise<void>;
  /** Whether its health checks have the replica on `backendPort` up (a failing readiness takes it out). */
  isServing(service: string, backendPort: number): Promise<boolean>;
  stop(): Promise<void>;
}

/** What the supervisor did about a process. */
export interface SupervisorEvent {
  name: string;
  kind: 'exited' | 'restarted' | 'restart_failed';
  /** Exit code or signal for `exited`; the delay before the restart. */
  code?: number | null;
  signal?: string | null;
  restartInMs?: number;
  error?: string;
}

export interface RunningProcess {
  name: string;
  url: string;
  port: number;
  child: ChildProcess;
}

export interface RunningCluster {
  /** The gateway's public URL (the balancer's, when there is one). */
  gatewayUrl: string;
  /** Every gateway replica's URL, the first being `gatewayUrl`. */
  gatewayUrls: string[];
  /** The gateway's `/metrics` (its own port: the public one does not serve it). */
  gatewayMetricsUrl: string;
  adminToken: string;
  bootstrapKey: string;
  processes: Map<string, RunningProcess>;
  /** Stops one process on purpose (SIGTERM, then SIGKILL after 10 s); the supervisor leaves it stopped. */
  stopProcess(name: string): Promise<void>;
  /** Starts a stopped process again with the same settings (waits for it when it is already running). */
  startProcess(name: string): Promise<void>;
  /** How many times the supervisor has restarted a process. */
  restarts(name: string): number;
  /** The processes of each service, by service: `{ registry: ['registry', 'registry-2'] }`. */
  replicasOf: Record<string, string[]>;
  /** Resolves once the balancer (if any) sends traffic to the process `name` again. */
  balancerServes(name: string): Promise<void>;
  /** The balancer (if any) sends the process `name` no more requests. */
  balancerTakesOut(name: string): Promise<void>;
  /** Whether the balancer sends the process `name` requests now (true without a balancer). */
  balancerSendsTo(name: string): Promise<boolean>;
  stop(): Promise<void>;
}

const RESTART_BASE_MS = 500;
const RESTART_MAX_MS = 30_000;
// A process that ran this long before it crashed starts again after the base delay.
const STABLE_AFTER_MS = 30_000;

// Ports this process has handed out: the kernel may give the same free port to two bind(0) calls
// in a row (the first server is closed before its port is used), and a cluster picks all its
// ports before it starts any process. Two processes on one port made the gateway's readiness
// answer come from billing (seen in CI: "Invalid internal token" on an admin call).
const handedOut = new Set<number>();

function bindZero(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** `count` free ports (see freePort). */
export async function freePorts(count: number, pick: () => Promise<number> = freePort): Promise<number[]> {
  const ports: number[] = [];
  for (let i = 0; i < count; i += 1) ports.push(await pick());
  return ports;
}

/** A free TCP port on the loopback interface, never one this process has handed out before. */
export async function freePort(): Promise<number> {
  for (let attempt = 0; attempt < 100; attempt += 1) {
    const port = await bindZero();
    if (!handedOut.has(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error('no free port that was not handed out already');
}

/**
 * Whether `pid` holds the listening socket of 127.0.0.1/0.0.0.0:`port` (Linux: /proc/net/tcp
 * and the process's descriptors). False for a process that is gone (it holds nothing: a child
 * that lost the port to another process and exited is not ready, though its exit may not have
 * been reported yet). Undefined where /proc cannot tell.
 */
export function listensOn(pid: number, port: number): boolean | undefined {
  const hexPort = port.toString(16).toUpperCase().padStart(4, '0');
  const inodes = new Set<string>();
  try {
    for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
      if (!existsSync(table)) continue;
      for (const line of readFileSync(table, 'utf8').split('\n').slice(1)) {
        // local_address is ADDR:PORT in hex; state 0A is LISTEN; the inode is the tenth field.
        const [, local, , state, , , , , , inode] = line.trim().split(/\s+/);
        if (local?.endsWith(`:${hexPort}`) === true && state === '0A' && inode !== undefined)
          inodes.add(inode);
      }
    }
    if (inodes.size === 0) return false;
    let fds: string[];
    try {
      fds = readdirSync(`/proc/${pid}/fd`);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return false;
      throw err;
    }
    for (const fd of fds) {
      let target: string;
      try {
        target = readlinkSync(`/proc/${pid}/fd/${fd}`);
      } catch {
        continue;
      }
      const inode = /^socket:\[(\d+)\]$/.exec(target)?.[1];
      if (inode !== undefined && inodes.has(inode)) return true;
    }
    return false;
  } catch {
    return undefined;
  }
}

function builtServices(rootDir: string): string[] {
  const dir = path.join(rootDir, 'services');
  return readdirSync(dir).filter(
    (name) =>
      name !== 'gateway' && name !== 'embedded' && existsSync(path.join(dir, name, 'dist', 'main.js')),
  );
}

function databaseUrl(base: string, name: string): string {
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

async function waitReady(url: string, child: ChildProcess, timeoutMs = 30_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  while (performance.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`process for ${url} exited with ${child.exitCode}`);
    try {
      const response = await fetch(`${url}/readyz`);
      // Ready, and the answer came from this child: another process on the port is not it.
      if (response.status === 200 && listensOn(child.pid ?? -1, Number(new URL(url).port)) !== false) return;
    } catch {
      // not listening yet
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${url} was not ready within ${timeoutMs} ms`);
}

/** Starts the gateway and the domain services as separate processes on PostgreSQL and RabbitMQ. */
export async function startCluster(options: ClusterOptions): Promise<RunningCluster> {
  const services = options.services ?? builtServices(options.rootDir);
  const prefix = options.databasePrefix ?? '';
  const adminToken = options.adminToken ?? `adm_${randomBytes(16).toString('hex')}`;
  const keyPrefix = options.env?.SVC_ENVIRONMENT === 'production' ? 'svc_live_' : 'svc_test_';
  const bootstrapKey = options.bootstrapKey ?? `${keyPrefix}${randomBytes(24).toString('hex').slice(0, 40)}`;
  const internalJwtSecret = options.env?.INTERNAL_JWT_SECRET ?? randomBytes(32).toString('hex');
  const processes = new Map<string, RunningProcess>();
  // A process's service: its own name, except for extra gateway replicas (gateway-2 runs the gateway).
  const settings = new Map<string, { env: NodeJS.ProcessEnv; port: number; service?: string }>();

  const supervise = options.supervise ?? true;
  // Processes stopped on purpose (stopProcess, stop): the supervisor leaves them down.
  const held = new Set<string>();
  const pendingRestarts = new Map<string, NodeJS.Timeout>();
  const failures = new Map<string, number>();
  const restartCounts = new Map<string, number>();
  let shuttingDown = false;

  const report = (event: SupervisorEvent): void => {
    options.onSupervisorEvent?.(event);
    if (options.output === 'prefixed') process.stdout.write(`[supervisor] ${JSON.stringify(event)}\n`);
  };

  const superviseExit = (name: string, child: ChildProcess, startedAt: number): void => {
    child.once('exit', (code, signal) => {
      if (!supervise || shuttingDown || held.has(name)) return;
      if (processes.get(name)?.child !== child) return;
      const ranMs = performance.now() - startedAt;
      const previous = ranMs >= STABLE_AFTER_MS ? 0 : (failures.get(name) ?? 0);
      failures.set(name, previous + 1);
      const restartInMs = Math.min(RESTART_MAX_MS, RESTART_BASE_MS * 2 ** previous);
      report({ name, kind: 'exited', code, signal, restartInMs });
      const timer = setTimeout(() => {
        pendingRestarts.delete(name);
        if (shuttingDown || held.has(name)) return;
        restartCounts.set(name, (restartCounts.get(name) ?? 0) + 1);
        launch(name).then(
          () => report({ name, kind: 'restarted' }),
          // Its exit schedules the next attempt; a process that stays up but never ready is killed.
          (err: unknown) => {
            report({ name, kind: 'restart_failed', error: String(err) });
            const current = processes.get(name)?.child;
            if (current !== undefined && current.exitCode === null) current.kill('SIGKILL');
          },
        );
      }, restartInMs);
      pendingRestarts.set(name, timer);
    });
  };

  const cancelRestart = (name: string): void => {
    const timer = pendingRestarts.get(name);
    if (timer !== undefined) clearTimeout(timer);
    pendingRestarts.delete(name);
  };

  const launch = async (name: string): Promise<void> => {
    const setting = settings.get(name);
    if (setting === undefined) throw new Error(`unknown process ${name}`);
    const entry = path.join(options.rootDir, 'services', setting.service ?? name, 'dist', 'main.js');
    const child = spawn(process.execPath, [...SERVICE_NODE_FLAGS, entry], {
      env: setting.env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    superviseExit(name, child, performance.now());
    const tag = `[${name}] `;
    const relay = (chunk: Buffer) => {
      if (options.output === 'silent') return;
      for (const line of chunk.toString('utf8').split('\n'))
        if (line !== '') process.stdout.write(tag + line + '\n');
    };
    child.stdout?.on('data', relay);
    child.stderr?.on('data', relay);
    const url = `http://127.0.0.1:${setting.port}`;
    processes.set(name, { name, url, port: setting.port, child });
    await waitReady(url, child);
  };

  const common: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    NODE_ENV: 'production',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    INTERNAL_JWT_SECRET: internalJwtSecret,
    AMQP_URL: options.amqpUrl,
    HOST: '127.0.0.1',
    ...childCoverageEnv(),
    ...options.env,
  };

  const replicas = Math.max(1, options.replicas ?? 1);
  const balancer = replicas > 1 ? options.balancer : undefined;
  if (replicas > 1 && balancer === undefined)
    throw new Error('replicas > 1 need a balancer in front of them');
  const replicasOf: Record<string, string[]> = {};
  const replicaName = (service: string, replica: number): string =>
    replica === 1 ? service : `${service}-${replica}`;
  const balanced: BalancedService[] = [];

  const serviceUrls: Record<string, string> = {};
  const ports = new Map<string, number>();
  for (const name of services) {
    const port =
      options.ports?.[name] ??
      (options.fixedPorts === true ? (SERVICE_PORTS[name] ?? (await freePort())) : await freePort());
    ports.set(name, port);
    serviceUrls[`${name.replace(/-/g, '_').toUpperCase()}_URL`] = `http://127.0.0.1:${port}`;
  }
  // Every process knows every service's URL (the balancer's, when there is one): enforcement asks
  // detection over HTTP.
  for (const [name, port] of ports) {
    const backendPorts = balancer === undefined ? [port] : await freePorts(replicas, options.replicaPort);
    if (balancer !== undefined) balanced.push({ service: name, frontPort: port, backendPorts });
    replicasOf[name] = [];
    for (const [index, backendPort] of backendPorts.entries()) {
      const processName = replicaName(name, index + 1);
      replicasOf[name].push(processName);
      settings.set(processName, {
        port: backendPort,
        ...(index === 0 ? {} : { service: name }),
        env: {
          ...common,
          ...serviceUrls,
          PORT: String(backendPort),
          DATABASE_URL: databaseUrl(options.postgresUrl, `${prefix}${name.replace(/-/g, '_')}`),
        },
      });
    }
  }
  const gatewayPort =
    options.ports?.gateway ??
    (options.fixedPorts === true ? Number(process.env.PORT ?? SERVICE_PORTS.gateway) : await freePort());
  const gatewayMetricsPort = options.fixedPorts === true ? GATEWAY_METRICS_PORT : await freePort();
  // Credentials and status lists name the gateway's address, where third parties reach them (docs/spec/contracts.md §16).
  for (const name of replicasOf.licensing ?? []) {
    const licensing = settings.get(name);
    if (licensing !== undefined && options.env?.CREDENTIAL_ISSUER === undefined) {
      licensing.env.CREDENTIAL_ISSUER = `http://127.0.0.1:${gatewayPort}`;
    }
  }
  const gatewayReplicas = balancer === undefined ? (options.gatewayReplicas ?? 1) : replicas;
  const gatewayBackends =
    balancer === undefined ? [gatewayPort] : await freePorts(gatewayReplicas, options.replicaPort);
  settings.set('gateway', {
    port: gatewayBackends[0] ?? gatewayPort,
    env: {
      ...common,
      ...serviceUrls,
      PORT: String(gatewayBackends[0] ?? gatewayPort),
      METRICS_PORT: String(gatewayMetricsPort),
      DATABASE_URL: databaseUrl(options.postgresUrl, `${prefix}gateway`),
      ADMIN_TOKEN: adminToken,
      SVC_BOOTSTRAP_KEY: bootstrapKey,
    },
  });
  const replicaNames: string[] = [];
  const replicaPorts: number[] = [];
  const gatewayEnv = settings.get('gateway')?.env ?? {};
  for (let replica = 2; replica <= gatewayReplicas; replica += 1) {
    const name = `gateway-${replica}`;
    const port = gatewayBackends[replica - 1] ?? (await freePort());
    settings.set(name, {
      port,
      service: 'gateway',
      env: { ...gatewayEnv, PORT: String(port), METRICS_PORT: String(await freePort()) },
    });
    replicaNames.push(name);
    replicaPorts.push(port);
  }
  replicasOf.gateway = ['gateway', ...replicaNames];
  if (options.envOf !== undefined)
    for (const [name, setting] of settings) setting.env = options.envOf(name, setting.env);
  if (balancer !== undefined)
    balanced.push({ service: 'gateway', frontPort: gatewayPort, backendPorts: gatewayBackends });

  const stopProcess = async (name: string): Promise<void> => {
    held.add(name);
    cancelRestart(name);
    const running = processes.get(name);
    if (running === undefined || running.child.exitCode !== null || running.child.signalCode !== null) return;
    const exited = new Promise<void>((resolve) => running.child.once('exit', () => resolve()));
    running.child.kill('SIGTERM');
    const timer = setTimeout(() => running.child.kill('SIGKILL'), 10_000);
    await exited;
    clearTimeout(timer);
  };

  const startProcess = async (name: string): Promise<void> => {
    held.delete(name);
    cancelRestart(name);
    const running = processes.get(name);
    // Already brought back by the supervisor (or never stopped): wait for it rather than start a second one.
    if (running !== undefined && running.child.exitCode === null && running.child.signalCode === null) {
      await waitReady(running.url, running.child);
      return;
    }
    await launch(name);
  };

  try {
    await balancer?.start(balanced);
    // The first replica of each service migrates its database; the others start after it.
    await Promise.all(services.map((name) => launch(name)));
    await Promise.all(
      services.flatMap((name) => (replicasOf[name] ?? []).slice(1)).map((name) => launch(name)),
    );
    await launch('gateway');
    // After the first: it has migrated the gateway's database.
    await Promise.all(replicaNames.map((name) => launch(name)));
  } catch (err) {
    shuttingDown = true;
    await Promise.all([...processes.keys()].map((name) => stopProcess(name)));
    await balancer?.stop().catch(() => undefined);
    throw err;
  }

  return {
    gatewayUrl: `http://127.0.0.1:${gatewayPort}`,
    gatewayUrls: [
      `http://127.0.0.1:${balancer === undefined ? gatewayPort : (gatewayBackends[0] ?? gatewayPort)}`,
      ...replicaPorts.map((port) => `http://127.0.0.1:${port}`),
    ],
    gatewayMetricsUrl: `http://127.0.0.1:${gatewayMetricsPort}/metrics`,
    adminToken,
    bootstrapKey,
    processes,
    stopProcess,
    startProcess,
    restarts: (name) => restartCounts.get(name) ?? 0,
    replicasOf,
    balancerServes: async (name) => {
      const setting = settings.get(name);
      if (balancer === undefined || setting === undefined) return;
      await balancer.waitUntilServing(setting.service ?? name, setting.port);
    },
    balancerTakesOut: async (name) => {
      const setting = settings.get(name);
      if (balancer === undefined || setting === undefined) return;
      await balancer.takeOut(setting.service ?? name, setting.port);
    },
    balancerSendsTo: async (name) => {
      const setting = settings.get(name);
      if (balancer === undefined || setting === undefined) return true;
      return balancer.isServing(setting.service ?? name, setting.port);
    },
    stop: async () => {
      shuttingDown = true;
      for (const name of [...pendingRestarts.keys()]) cancelRestart(name);
      await Promise.all(['gateway', ...replicaNames].map((name) => stopProcess(name)));
      await Promise.all(
        services.flatMap((name) => replicasOf[name] ?? [name]).map((name) => stopProcess(name)),
      );
      await balancer?.stop();
    },
  };
}
