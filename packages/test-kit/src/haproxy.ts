import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import type { BalancedService, ClusterBalancer } from './cluster';
import { onAbnormalExit } from './last-resort';

/** Where Debian's haproxy package puts the binary (`apt-get install haproxy`; .ci/run installs it). */
const HAPROXY = ['/usr/sbin/haproxy', '/usr/bin/haproxy', '/usr/local/sbin/haproxy'];

export interface HaproxyOptions {
  /** Between two health checks of a replica (default 1000 ms). */
  checkIntervalMs?: number;
  /** Failed checks before a replica is out (default 2), passed checks before it is back in (default 1). */
  fall?: number;
  rise?: number;
}

/** The haproxy binary of this machine, or undefined. */
export function haproxyBinary(): string | undefined {
  return HAPROXY.find((file) => existsSync(file));
}

/**
 * The configuration: one frontend per service on its front port, round robin over its replicas,
 * each checked on `/readyz` as a Kubernetes readiness probe would, a connection that fails tried
 * on the other replica (a request that reached a replica is never sent twice: a POST is not safe).
 */
export function haproxyConfig(
  services: BalancedService[],
  options: HaproxyOptions = {},
  statsSocket?: string,
): string {
  const inter = options.checkIntervalMs ?? 1000;
  const lines = [
    'global',
    '  maxconn 4096',
    ...(statsSocket === undefined ? [] : [`  stats socket ${statsSocket} mode 600 level admin`]),
    'defaults',
    '  mode http',
    '  timeout connect 2s',
    '  timeout client 180s',
    '  timeout server 180s',
    '  timeout http-request 30s',
    '  timeout check 2s',
    '  retries 2',
    '  option redispatch',
    '  retry-on conn-failure',
    '  option http-keep-alive',
  ];
  for (const { service, frontPort, backendPorts } of services) {
    lines.push(
      `frontend fe_${service}`,
      `  bind 127.0.0.1:${frontPort}`,
      `  default_backend be_${service}`,
      `backend be_${service}`,
      '  balance roundrobin',
      '  option httpchk GET /readyz',
      '  http-check expect status 200',
      `  default-server inter ${inter} fall ${options.fall ?? 2} rise ${options.rise ?? 1}`,
      ...backendPorts.map((port, i) => `  server r${i + 1} 127.0.0.1:${port} check`),
    );
  }
  return lines.join('\n') + '\n';
}

/** One command on HAProxy's stats socket; its whole answer. */
function ask(socketPath: string, command: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(socketPath);
    let answer = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (answer += chunk));
    socket.once('error', reject);
    socket.once('close', () => resolve(answer));
    socket.once('connect', () => socket.end(`${command}\n`));
  });
}

function accepts(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/**
 * HAProxy in front of a cluster's replicas (`startCluster({ replicas, balancer: haproxyBalancer() })`),
 * as a Kubernetes Service in front of a Deployment's pods. Only the pid it started is signalled.
 */
export function haproxyBalancer(options: HaproxyOptions = {}): ClusterBalancer {
  let child: ChildProcess | undefined;
  let dir: string | undefined;
  let forget: (() => void) | undefined;
  let statsSocket: string | undefined;
  let served: BalancedService[] = [];
  const serverOf = (service: string, backendPort: number): string => {
    const index = served.find((s) => s.service === service)?.backendPorts.indexOf(backendPort) ?? -1;
    if (index < 0) throw new Error(`haproxy has no ${service} replica on port ${backendPort}`);
    return `be_${service}/r${index + 1}`;
  };
  return {
    async takeOut(service, backendPort) {
      if (statsSocket === undefined) throw new Error('haproxy is not running');
      // Maintenance: no new request goes to it, as a terminating pod leaves a Service's endpoints.
      await ask(statsSocket, `set server ${serverOf(service, backendPort)} state maint`);
    },
    async waitUntilServing(service, backendPort, timeoutMs = 30_000) {
      if (statsSocket === undefined) throw new Error('haproxy is not running');
      await ask(statsSocket, `set server ${serverOf(service, backendPort)} state ready`);
      const deadline = performance.now() + timeoutMs;
      while (!(await this.isServing(service, backendPort))) {
        if (performance.now() > deadline)
          throw new Error(`haproxy did not see ${service} on port ${backendPort} up within ${timeoutMs} ms`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async isServing(service, backendPort) {
      if (statsSocket === undefined) throw new Error('haproxy is not running');
      // `show servers state`: one line per server; srv_op_state (2: running) is the 6th field,
      // srv_admin_state (0: not in maintenance) the 7th, srv_port the 19th.
      const state = await ask(statsSocket, `show servers state be_${service}`).catch(() => '');
      return state
        .split('\n')
        .map((line) => line.trim().split(/\s+/))
        .some((fields) => fields[18] === String(backendPort) && fields[5] === '2' && fields[6] === '0');
    },
    async start(services) {
      const binary = haproxyBinary();
      if (binary === undefined) throw new Error('haproxy is not installed (apt-get install haproxy)');
      dir = mkdtempSync(path.join(os.tmpdir(), 'svc-haproxy-'));
      const config = path.join(dir, 'haproxy.cfg');
      served = services;
      statsSocket = path.join(dir, 'admin.sock');
      writeFileSync(config, haproxyConfig(services, options, statsSocket));
      const output: string[] = [];
      const started = spawn(binary, ['-db', '-f', config], { stdio: ['ignore', 'pipe', 'pipe'] });
      child = started;
      forget = onAbnormalExit(() => {
        if (started.exitCode === null) started.kill('SIGKILL');
      });
      for (const stream of [started.stdout, started.stderr])
        stream?.on('data', (chunk: Buffer) =>
          output.push(...chunk.toString('utf8').split('\n').filter(Boolean)),
        );
      const deadline = performance.now() + 10_000;
      for (;;) {
        if (started.exitCode !== null)
          throw new Error(`haproxy exited with ${started.exitCode}: ${output.slice(-5).join(' | ')}`);
        const listening = await Promise.all(services.map((s) => accepts(s.frontPort)));
        if (listening.every(Boolean)) return;
        if (performance.now() > deadline) throw new Error('haproxy did not listen within 10 s');
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    },
    async stop() {
      const running = child;
      child = undefined;
      forget?.();
      if (running !== undefined && running.exitCode === null && running.signalCode === null) {
        const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
        running.kill('SIGTERM');
        const timer = setTimeout(() => running.kill('SIGKILL'), 5000);
        await exited;
        clearTimeout(timer);
      }
      if (dir !== undefined) rmSync(dir, { recursive: true, force: true });
      dir = undefined;
    },
  };
}
