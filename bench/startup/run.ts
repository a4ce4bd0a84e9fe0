// How long until the embedded default answers (issue #33, "First run"): `make dev` on a fresh clone
// (install, build, first start; goal ≤ 90 s) and a start on a built tree with new data (goal
// ≤ 10 s), with the same-run baseline of the same start where every database runs its own initdb
// (SVC_PGLITE_TEMPLATE=off, as before the template), and a restart on existing data for context.
// The starts alternate template / initdb, three of each; the medians are printed.
//
// BENCH_STARTS (default 3) starts of each kind; BENCH_SKIP_CLONE=1 skips the fresh clone (it
// clones HEAD: uncommitted changes are not in it, and pnpm installs from this machine's store).
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import os from 'node:os';
import path from 'node:path';

// bench/dist/startup/run.js: the repository is three levels up.
const ROOT = path.resolve(__dirname, '../../..');
const STARTS = Number(process.env.BENCH_STARTS ?? 3);
const BUILT_GOAL_S = 10;
const FRESH_CLONE_GOAL_S = 90;
const READY = /Admin token:\s+\S+/;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address !== null ? address.port : 0));
    });
  });
}

/** Runs `command` in its own process group until it prints the admin token; seconds it took. */
async function timeUntilReady(
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv,
): Promise<number> {
  const started = performance.now();
  const child: ChildProcess = spawn(command, args, {
    cwd,
    env,
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`not ready after 10 min:\n${output.slice(-3000)}`)),
        600_000,
      );
      const look = (chunk: Buffer): void => {
        output = (output + chunk.toString('utf8')).slice(-20_000);
        if (READY.test(output)) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout?.on('data', look);
      child.stderr?.on('data', look);
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`exited (${code ?? signal}) before it was ready:\n${output.slice(-3000)}`));
      });
    });
    return (performance.now() - started) / 1000;
  } finally {
    await stop(child);
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  const gone = new Promise((resolve) => child.once('exit', resolve));
  process.kill(-child.pid, 'SIGTERM');
  const killer = setTimeout(() => {
    if (child.pid !== undefined) process.kill(-child.pid, 'SIGKILL');
  }, 20_000);
  await gone;
  clearTimeout(killer);
}

async function startEmbedded(dataDir: string, template: boolean): Promise<number> {
  const env: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    PORT: String(await freePort()),
    METRICS_PORT: '0',
    MAIL_CATCHER_PORT: '0',
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    ...(template ? {} : { SVC_PGLITE_TEMPLATE: 'off' }),
  };
  return timeUntilReady(process.execPath, [path.join(ROOT, 'services/embedded/dist/main.js')], ROOT, env);
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

const s = (seconds: number): string => `${seconds.toFixed(1)} s`;
const verdict = (ok: boolean): string => (ok ? 'PASS' : 'MISS');

async function main(): Promise<void> {
  const scratch = mkdtempSync(path.join(os.tmpdir(), 'svc-bench-startup-'));
  try {
    const withTemplate: number[] = [];
    const withInitdb: number[] = [];
    const restarts: number[] = [];
    // One start first, not counted: it makes this machine's template if there is none yet.
    await startEmbedded(path.join(scratch, 'warm'), true);
    for (let i = 0; i < STARTS; i++) {
      const fresh = path.join(scratch, `template-${i}`);
      withTemplate.push(await startEmbedded(fresh, true));
      restarts.push(await startEmbedded(fresh, true));
      withInitdb.push(await startEmbedded(path.join(scratch, `initdb-${i}`), false));
      process.stdout.write(
        `  start ${i + 1}: new data ${s(withTemplate[i] ?? 0)} (initdb: ${s(withInitdb[i] ?? 0)}), restart ${s(restarts[i] ?? 0)}\n`,
      );
    }
    const built = median(withTemplate);
    const baseline = median(withInitdb);

    let clone: number | undefined;
    if (process.env.BENCH_SKIP_CLONE !== '1') {
      const dir = path.join(scratch, 'clone');
      await new Promise<void>((resolve, reject) => {
        const git = spawn('git', ['clone', '-q', ROOT, dir], { stdio: 'inherit' });
        git.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`git clone exited ${code}`))));
      });
      const port = String(await freePort());
      clone = await timeUntilReady('make', ['dev'], dir, {
        ...process.env,
        PORT: port,
        METRICS_PORT: '0',
        MAIL_CATCHER_PORT: '0',
      });
    }

    const rows = [
      '| start | figure | same-run baseline | goal | result |',
      '|---|---|---|---|---|',
      `| built tree, new data (median of ${STARTS}) | ${s(built)} | ${s(baseline)} with initdb per database (${(built / baseline).toFixed(2)}x) | ≤ ${BUILT_GOAL_S} s | ${verdict(built <= BUILT_GOAL_S)} |`,
      `| built tree, existing data (median of ${STARTS}) | ${s(median(restarts))} | – | – | – |`,
      clone === undefined
        ? '| make dev, fresh clone | skipped (BENCH_SKIP_CLONE=1) | | | |'
        : `| make dev, fresh clone (install, build, start) | ${s(clone)} | ${s(built)} of it the start | ≤ ${FRESH_CLONE_GOAL_S} s | ${verdict(clone <= FRESH_CLONE_GOAL_S)} |`,
    ];
    process.stdout.write(
      `\nThe embedded default, until it answers (Node ${process.version}, ${os.availableParallelism()} cores):\n\n${rows.join('\n')}\n`,
    );
  } finally {
    rmSync(scratch, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
