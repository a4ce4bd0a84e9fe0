import { execFile, execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';

/** Who a command runs as: the current user, or (as root) an unprivileged one by uid/gid. */
export interface RunAs {
  uid: number;
  gid: number;
  /** The user's name, for messages. */
  name: string;
}

/**
 * The user that servers refusing root (PostgreSQL) run as: undefined when this process is not
 * root; otherwise `postgres` when that user exists, else `nobody`. Node drops the privileges
 * itself (spawn's uid/gid), so neither runuser nor setpriv is needed.
 */
export function unprivilegedUser(): RunAs | undefined {
  if (typeof process.getuid !== 'function' || process.getuid() !== 0) return undefined;
  for (const name of ['postgres', 'nobody']) {
    try {
      const uid = Number(execFileSync('id', ['-u', name], { encoding: 'utf8' }).trim());
      const gid = Number(execFileSync('id', ['-g', name], { encoding: 'utf8' }).trim());
      if (Number.isInteger(uid) && Number.isInteger(gid)) return { uid, gid, name };
    } catch {
      // no such user: try the next
    }
  }
  throw new Error('running as root, but neither a postgres nor a nobody user exists to drop privileges to');
}

export interface CommandOptions {
  env?: NodeJS.ProcessEnv;
  runAs?: RunAs;
  /** The command is killed after this long (default 60 s). */
  timeoutMs?: number;
  cwd?: string;
}

/** Runs a command to completion (bounded in time) and resolves with its stdout; rejects with its stderr. */
export function runCommand(command: string, args: string[], options: CommandOptions = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(
      command,
      args,
      {
        env: options.env ?? process.env,
        timeout: options.timeoutMs ?? 60_000,
        killSignal: 'SIGKILL',
        maxBuffer: 16 * 1024 * 1024,
        ...(options.cwd === undefined ? {} : { cwd: options.cwd }),
        ...(options.runAs === undefined ? {} : { uid: options.runAs.uid, gid: options.runAs.gid }),
      },
      (err, stdout, stderr) => {
        if (err === null) resolve(stdout);
        else
          reject(
            new Error(`${command} ${args.join(' ')} failed: ${err.message}\n${stderr}${stdout}`.trim(), {
              cause: err,
            }),
          );
      },
    );
  });
}

/** True while a process with this pid exists (signal 0 probes without signalling). */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: it exists but belongs to another user.
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Waits (bounded) until a pid has gone; resolves false when it is still there at the deadline. */
export async function waitGone(pid: number, timeoutMs: number): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  while (processAlive(pid)) {
    if (performance.now() > deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return true;
}

function ephemeralRangeStart(): number {
  try {
    const [low] = readFileSync('/proc/sys/net/ipv4/ip_local_port_range', 'utf8').trim().split(/\s+/);
    const value = Number(low);
    return Number.isInteger(value) && value > 12_000 ? value : 32_768;
  } catch {
    return 32_768;
  }
}

// Ports already given to a caller of this process: never hand one out twice.
const handedOut = new Set<number>();

function canListen(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });
}

/**
 * A free loopback port below the kernel's ephemeral range. A server that must listen on the same
 * port again after a restart cannot take one from that range: an outgoing connection may be using
 * it as its local port by then (EADDRINUSE).
 */
export async function stablePort(): Promise<number> {
  const high = ephemeralRangeStart() - 1;
  const low = 10_000;
  for (let attempt = 0; attempt < 200; attempt++) {
    const port = low + Math.floor(Math.random() * (high - low));
    if (handedOut.has(port)) continue;
    if (await canListen(port)) {
      handedOut.add(port);
      return port;
    }
  }
  throw new Error(`no free port between ${low} and ${high}`);
}
