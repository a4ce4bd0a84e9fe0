import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import { onAbnormalExit } from './last-resort';
import { processAlive, runCommand, stablePort, waitGone } from './local-commands';

/** A queue as `rabbitmqctl list_queues` shows it. */
export interface QueueDepth {
  name: string;
  /** Ready and unacknowledged messages. */
  messages: number;
  consumers: number;
}

/** A binding of the events exchange to a queue. */
export interface QueueBinding {
  exchange: string;
  queue: string;
  routingKey: string;
}

/**
 * A RabbitMQ node of a test's own: its own node name, ports, epmd, Erlang cookie (its own HOME)
 * and data directory, so that a test may stop and start it without touching the machine's broker.
 */
export interface PrivateRabbitMQ {
  /** `amqp://guest:guest@127.0.0.1:<port>` (guest may connect: loopback_users = none). */
  url: string;
  nodeName: string;
  /** Stops the broker application (connections drop, the node stays up). */
  stopApp(): Promise<void>;
  startApp(): Promise<void>;
  queues(): Promise<QueueDepth[]>;
  bindings(exchange: string): Promise<QueueBinding[]>;
  /** Stops the node and its epmd, removes its directory. Safe to call twice. */
  teardown(): Promise<void>;
}

/** Where the RabbitMQ scripts are: RABBITMQ_BIN, or Debian's /usr/lib/rabbitmq/bin (not the root wrapper in /usr/sbin). */
export function rabbitmqBinDir(): string {
  const candidates = [process.env.RABBITMQ_BIN, '/usr/lib/rabbitmq/bin', '/usr/local/sbin', '/usr/sbin'];
  for (const dir of candidates)
    if (dir !== undefined && existsSync(path.join(dir, 'rabbitmq-server'))) return dir;
  throw new Error('rabbitmq-server not found: set RABBITMQ_BIN to the directory of rabbitmq-server');
}

/**
 * Starts a private RabbitMQ node. The scripts are called directly (Debian's /usr/sbin wrapper
 * switches to the rabbitmq user and its HOME, hence its cookie): server and CLI share this node's
 * HOME, and the cookie in it, written here first. epmd listens on a port of its own and is
 * stopped with the node.
 */
export async function startPrivateRabbitMQ(): Promise<PrivateRabbitMQ> {
  const bin = rabbitmqBinDir();
  const root = mkdtempSync(path.join(os.tmpdir(), 'svc-private-rabbit-'));
  const home = path.join(root, 'home');
  for (const dir of [home, path.join(root, 'mnesia'), path.join(root, 'log')]) mkdirSync(dir);
  // The cookie is written before either starts: left to them, `rabbitmq-server -detached` returns
  // before the node has written one, and `rabbitmqctl wait`, started at once, could write its own.
  // A CI run's replica suite saw it: 120 s of "Invalid challenge reply", and five tests lost.
  writeFileSync(path.join(home, '.erlang.cookie'), randomBytes(20).toString('hex').toUpperCase(), {
    mode: 0o400,
  });
  const [amqpPort, distPort, epmdPort] = [await stablePort(), await stablePort(), await stablePort()];
  const nodeName = `svcfaults${randomBytes(4).toString('hex')}@localhost`;
  const pidFile = path.join(root, 'rabbit.pid');
  writeFileSync(path.join(root, 'rabbitmq.conf'), 'loopback_users = none\n');
  writeFileSync(path.join(root, 'enabled_plugins'), '[].\n');
  // An empty env file: the machine's /etc/rabbitmq/rabbitmq-env.conf must not rename this node.
  writeFileSync(path.join(root, 'rabbitmq-env.conf'), '');
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    LANG: 'C.UTF-8',
    HOME: home,
    RABBITMQ_NODENAME: nodeName,
    RABBITMQ_NODE_IP_ADDRESS: '127.0.0.1',
    RABBITMQ_NODE_PORT: String(amqpPort),
    RABBITMQ_DIST_PORT: String(distPort),
    RABBITMQ_MNESIA_BASE: path.join(root, 'mnesia'),
    RABBITMQ_LOG_BASE: path.join(root, 'log'),
    RABBITMQ_CONFIG_FILE: path.join(root, 'rabbitmq'),
    RABBITMQ_CONF_ENV_FILE: path.join(root, 'rabbitmq-env.conf'),
    RABBITMQ_ENABLED_PLUGINS_FILE: path.join(root, 'enabled_plugins'),
    RABBITMQ_PID_FILE: pidFile,
    ERL_EPMD_ADDRESS: '127.0.0.1',
    ERL_EPMD_PORT: String(epmdPort),
  };
  const ctl = (args: string[], timeoutMs = 60_000) =>
    runCommand(path.join(bin, 'rabbitmqctl'), ['-n', nodeName, ...args], { env, timeoutMs, cwd: root });
  const nodePid = (): number | undefined => {
    try {
      const value = Number(readFileSync(pidFile, 'utf8').trim());
      return Number.isInteger(value) && value > 0 && processAlive(value) ? value : undefined;
    } catch {
      return undefined;
    }
  };

  let tornDown = false;
  let forget: () => void = () => undefined;
  const stopNow = () => {
    const pid = nodePid();
    if (pid !== undefined) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // already gone
      }
    }
    try {
      execFileSync('epmd', ['-port', String(epmdPort), '-kill'], { env, timeout: 5000, stdio: 'ignore' });
    } catch {
      // not running
    }
    rmSync(root, { recursive: true, force: true });
  };
  const teardown = async (): Promise<void> => {
    if (tornDown) return;
    tornDown = true;
    forget();
    const pid = nodePid();
    await ctl(['stop'], 40_000).catch(() => undefined);
    if (pid !== undefined && !(await waitGone(pid, 15_000))) {
      process.kill(pid, 'SIGKILL');
      await waitGone(pid, 5_000);
    }
    // The epmd this node started on its own port (never the machine's, which is on 4369).
    await runCommand('epmd', ['-port', String(epmdPort), '-kill'], { env, timeoutMs: 10_000 }).catch(
      () => undefined,
    );
    rmSync(root, { recursive: true, force: true });
  };

  try {
    forget = onAbnormalExit(stopNow);
    await runCommand(path.join(bin, 'rabbitmq-server'), ['-detached'], { env, timeoutMs: 30_000, cwd: root });
    await ctl(['wait', pidFile, '--timeout', '120'], 130_000);
  } catch (err) {
    const logs = path.join(root, 'log', `${nodeName}.log`);
    const log = existsSync(logs) ? readFileSync(logs, 'utf8').slice(-3000) : '';
    await teardown();
    throw new Error(`private RabbitMQ did not start: ${(err as Error).message}\n${log}`, { cause: err });
  }

  return {
    url: `amqp://guest:guest@127.0.0.1:${amqpPort}`,
    nodeName,
    stopApp: async () => {
      await ctl(['stop_app']);
    },
    startApp: async () => {
      await ctl(['start_app']);
      await ctl(['await_startup', '--timeout', '60'], 70_000);
    },
    queues: async () => {
      const out = await ctl(['list_queues', '-q', '--no-table-headers', 'name', 'messages', 'consumers']);
      return out
        .split('\n')
        .map((line) => line.trim().split('\t'))
        .filter((cols) => cols.length === 3 && cols[0] !== '')
        .map(([name, messages, consumers]) => ({
          name: name ?? '',
          messages: Number(messages),
          consumers: Number(consumers),
        }));
    },
    bindings: async (exchange) => {
      const out = await ctl([
        'list_bindings',
        '-q',
        '--no-table-headers',
        'source_name',
        'destination_name',
        'routing_key',
      ]);
      return out
        .split('\n')
        .map((line) => line.trim().split('\t'))
        .filter((cols) => cols.length === 3 && cols[0] === exchange)
        .map(([source, queue, routingKey]) => ({
          exchange: source ?? '',
          queue: queue ?? '',
          routingKey: routingKey ?? '',
        }));
    },
    teardown,
  };
}
