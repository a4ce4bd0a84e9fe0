import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import {
  SERVICE_NODE_FLAGS,
  type ClusterOptions,
  type RunningCluster,
  type RunningProcess,
  type SupervisorEvent,
} from './cluster-options';
import { planCluster } from './cluster-plan';
import { listensOn } from './local-ports';
export * from './cluster-options';
export { freePort, freePorts, listensOn } from './local-ports';

const RESTART_BASE_MS = 500;
const RESTART_MAX_MS = 30_000;
// A process that ran this long before it crashed starts again after the base delay.
const STABLE_AFTER_MS = 30_000;

function builtServices(rootDir: string): string[] {
  const dir = path.join(rootDir, 'services');
  return readdirSync(dir).filter(
    (name) =>
      name !== 'gateway' && name !== 'embedded' && existsSync(path.join(dir, name, 'dist', 'main.js')),
  );
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
  const adminToken = options.adminToken ?? `adm_${randomBytes(16).toString('hex')}`;
  const keyPrefix = options.env?.SVC_ENVIRONMENT === 'production' ? 'svc_live_' : 'svc_test_';
  const bootstrapKey = options.bootstrapKey ?? `${keyPrefix}${randomBytes(24).toString('hex').slice(0, 40)}`;
  const internalJwtSecret = options.env?.INTERNAL_JWT_SECRET ?? randomBytes(32).toString('hex');
  const processes = new Map<string, RunningProcess>();

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

  const {
    settings,
    replicasOf,
    balancer,
    balanced,
    gatewayPort,
    gatewayMetricsPort,
    gatewayBackends,
    replicaNames,
    replicaPorts,
  } = await planCluster(options, services, { internalJwtSecret, adminToken, bootstrapKey });

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
