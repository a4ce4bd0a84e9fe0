import { chownSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import os from 'node:os';
import path from 'node:path';
import pg from 'pg';
import { onAbnormalExit } from './last-resort';
import {
  processAlive,
  runCommand,
  stablePort,
  unprivilegedUser,
  waitGone,
  type RunAs,
} from './local-commands';

/**
 * A PostgreSQL server of a test's own (initdb in a temporary directory, its own port and socket
 * directory), so that a test may restart or stop it without touching the machine's server.
 */
export interface PrivatePostgres {
  /** `postgres://postgres@127.0.0.1:<port>/postgres` (trust authentication). */
  url: string;
  port: number;
  dataDir: string;
  /** Stops the server (fast shutdown: sessions are terminated). */
  stop(): Promise<void>;
  start(): Promise<void>;
  /** Fast shutdown, then start again. */
  restart(): Promise<void>;
  /** The postmaster's pid while it runs. */
  pid(): number | undefined;
  /** Stops the server (whatever it takes) and removes its directory. Safe to call twice. */
  teardown(): Promise<void>;
}

/** The directory of initdb and pg_ctl: PG_BIN, `pg_config --bindir`, or the newest /usr/lib/postgresql/N/bin. */
export function postgresBinDir(): string {
  if (process.env.PG_BIN !== undefined && existsSync(path.join(process.env.PG_BIN, 'initdb')))
    return process.env.PG_BIN;
  const debian = '/usr/lib/postgresql';
  if (existsSync(debian)) {
    const versions = readdirSync(debian)
      .filter((v) => existsSync(path.join(debian, v, 'bin', 'initdb')))
      .sort((a, b) => Number(b) - Number(a));
    if (versions[0] !== undefined) return path.join(debian, versions[0], 'bin');
  }
  try {
    const dir = execFileSync('pg_config', ['--bindir'], { encoding: 'utf8' }).trim();
    if (existsSync(path.join(dir, 'initdb'))) return dir;
  } catch {
    // no pg_config
  }
  throw new Error('initdb not found: set PG_BIN to the directory of initdb and pg_ctl');
}

async function answers(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query('SELECT 1');
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * Starts a private PostgreSQL server. As root, the server runs as an unprivileged user (initdb and
 * postgres refuse root) in a temporary directory that user owns.
 */
export async function startPrivatePostgres(
  options: { port?: number; settings?: Record<string, string> } = {},
): Promise<PrivatePostgres> {
  const bin = postgresBinDir();
  const runAs: RunAs | undefined = unprivilegedUser();
  const root = mkdtempSync(path.join(os.tmpdir(), 'svc-private-pg-'));
  if (runAs !== undefined) chownSync(root, runAs.uid, runAs.gid);
  const dataDir = path.join(root, 'data');
  const logFile = path.join(root, 'postgres.log');
  const port = options.port ?? (await stablePort());
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  const settings: Record<string, string> = {
    listen_addresses: '127.0.0.1',
    // A test instance: durability across a power cut is not what is tested, speed is.
    fsync: 'off',
    synchronous_commit: 'off',
    full_page_writes: 'off',
    max_connections: '300',
    ...options.settings,
  };
  const serverOptions = [
    `-p ${port}`,
    `-k ${root}`,
    ...Object.entries(settings).map(([k, v]) => `-c ${k}=${v}`),
  ].join(' ');
  const pgCtl = (args: string[], timeoutMs = 90_000) =>
    runCommand(path.join(bin, 'pg_ctl'), ['-D', dataDir, ...args], {
      timeoutMs,
      cwd: root,
      ...(runAs === undefined ? {} : { runAs }),
    });

  const pid = (): number | undefined => {
    try {
      const first = readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0];
      const value = Number(first);
      return Number.isInteger(value) && value > 0 && processAlive(value) ? value : undefined;
    } catch {
      return undefined;
    }
  };

  const start = async (): Promise<void> => {
    await pgCtl(['-l', logFile, '-o', serverOptions, '-w', '-t', '60', 'start']);
    const deadline = performance.now() + 30_000;
    while (!(await answers(url))) {
      if (performance.now() > deadline) throw new Error(`private PostgreSQL on ${port} does not answer`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  };
  const stop = async (): Promise<void> => {
    if (pid() === undefined) return;
    await pgCtl(['-m', 'fast', '-w', '-t', '60', 'stop']);
  };

  let tornDown = false;
  let forget: () => void = () => undefined;
  const stopNow = () => {
    // Synchronous last resort (process exit): immediate shutdown, then the postmaster by pid.
    const current = pid();
    if (current !== undefined) {
      try {
        process.kill(current, 'SIGQUIT');
      } catch {
        // already gone
      }
    }
    rmSync(root, { recursive: true, force: true });
  };
  const teardown = async (): Promise<void> => {
    if (tornDown) return;
    tornDown = true;
    forget();
    const current = pid();
    if (current !== undefined) {
      await pgCtl(['-m', 'immediate', '-w', '-t', '30', 'stop'], 40_000).catch(() => undefined);
      if (!(await waitGone(current, 10_000))) {
        process.kill(current, 'SIGKILL');
        await waitGone(current, 5_000);
      }
    }
    rmSync(root, { recursive: true, force: true });
  };

  try {
    await runCommand(
      path.join(bin, 'initdb'),
      ['-D', dataDir, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--locale=C'],
      { timeoutMs: 120_000, cwd: root, ...(runAs === undefined ? {} : { runAs }) },
    );
    forget = onAbnormalExit(stopNow);
    await start();
  } catch (err) {
    const log = existsSync(logFile) ? readFileSync(logFile, 'utf8').slice(-2000) : '';
    await teardown();
    throw new Error(`private PostgreSQL did not start: ${(err as Error).message}\n${log}`, { cause: err });
  }

  return {
    url,
    port,
    dataDir,
    stop,
    start,
    restart: async () => {
      await stop();
      await start();
    },
    pid,
    teardown,
  };
}
