import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { onAbnormalExit, sleep, stablePort, waitGone } from '@svc/test-kit';
import { WorkloadClient } from './client';
import type { Death } from './fault-cluster';
import { formatTable, saveProblems, saveRows, type FaultRow } from './fault-report';
import { runUnderFault, type Bench } from './fault-run';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver';
import { Workload } from './workload';

// The embedded default (`make dev`: every service in one process on PGlite files) killed with
// -9 in the middle of writes and started again on the same data directory: what it acknowledged
// must read back, nothing may apply twice, and no retried request may get a 500.

const ROOT = path.resolve(__dirname, '..');
const RUNNERS = 2;

interface Embedded {
  child: ChildProcess;
  /** Everything it printed, both streams (the tail), where the admin token is looked for. */
  output: string;
  /** Its stderr alone (the tail): where Node writes a fatal error, whose first lines say what it was. */
  errors: string;
}

const dataDir = mkdtempSync(path.join(tmpdir(), 'svc-faults-embedded-'));
let port: number;
let current: Embedded | undefined;
let receiver: WebhookReceiver;
let workload: Workload;
let bench: Bench;
let adminToken = '';
const deaths: Death[] = [];
const intended = new WeakSet<ChildProcess>();
const rows: FaultRow[] = [];
/** A failed run keeps the embedded default's data directory (its PGlite files) for a post-mortem. */
let keepData = false;
// Interrupted before afterAll: the embedded process must not outlive the suite.
const forget = onAbnormalExit(() => {
  current?.child.kill('SIGKILL');
  rmSync(dataDir, { recursive: true, force: true });
});

async function startEmbedded(): Promise<void> {
  const child = spawn(process.execPath, [path.join(ROOT, 'services/embedded/dist/main.js')], {
    env: {
      PATH: process.env.PATH,
      PORT: String(port),
      METRICS_PORT: '0',
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  const embedded: Embedded = { child, output: '', errors: '' };
  const keep = (chunk: Buffer) => {
    embedded.output = (embedded.output + chunk.toString('utf8')).slice(-20_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  child.stderr?.on('data', (chunk: Buffer) => {
    embedded.errors = (embedded.errors + chunk.toString('utf8')).slice(-40_000);
  });
  // 'close', not 'exit': by then its last output (the crash) has been read.
  child.once('close', (code, signal) => {
    if (!intended.has(child))
      deaths.push({
        name: 'embedded',
        code,
        signal,
        at: performance.now(),
        // Laid out as the cluster's deaths are, so that the report shows the whole stderr: a V8
        // fatal error names itself in its first lines, above a native stack of a dozen more.
        output: [
          ...embedded.output.split('\n').slice(-20),
          '--- stderr ---',
          ...embedded.errors
            .split('\n')
            .filter((line) => line !== '')
            .slice(-80),
        ],
      });
  });
  current = embedded;
  // About 12 s on a quiet machine; over a minute at a load average near 20 (seven PGlite databases).
  const deadline = performance.now() + 180_000;
  while (!/Admin token:\s+\S+/.test(embedded.output)) {
    if (child.exitCode !== null || child.signalCode !== null)
      throw new Error(`the embedded default exited: ${embedded.output}`);
    if (performance.now() > deadline)
      throw new Error(`the embedded default was not ready: ${embedded.output}`);
    await sleep(100);
  }
  adminToken = /Admin token:\s+(\S+)/.exec(embedded.output)?.[1] ?? '';
}

async function stopEmbedded(signal: NodeJS.Signals): Promise<void> {
  const child = current?.child;
  if (child?.pid === undefined || child.exitCode !== null || child.signalCode !== null) return;
  intended.add(child);
  process.kill(child.pid, signal);
  if (!(await waitGone(child.pid, 20_000))) process.kill(child.pid, 'SIGKILL');
}

beforeAll(async () => {
  port = await stablePort();
  receiver = await startWebhookReceiver();
  await startEmbedded();
  const url = () => `http://127.0.0.1:${port}`;
  workload = new Workload(new WorkloadClient(url), receiver.url);
  await workload.setup(adminToken, RUNNERS, receiver.url);
  bench = {
    workload,
    checker: new WorkloadClient(url, { requestDeadlineMs: 8000 }),
    receiver,
    deaths,
    reviveDead: async () => {
      const child = current?.child;
      if (child !== undefined && child.exitCode === null && child.signalCode === null) return [];
      await startEmbedded();
      return ['embedded'];
    },
    reported: new Set(),
    dispatcherKills: [],
  };
}, 180_000);

afterAll(async () => {
  workload?.client.abandon();
  await workload?.stop().catch(() => undefined);
  if (rows.length > 0) console.log(`The embedded default under a fault:\n\n${formatTable(rows)}\n`);
  await stopEmbedded('SIGTERM');
  await receiver?.close();
  if (keepData) console.log(`The embedded default's data is kept for a post-mortem in ${dataDir}`);
  else rmSync(dataDir, { recursive: true, force: true });
  forget();
}, 60_000);

describe('the embedded default under a fault', () => {
  it(
    'when it is killed with -9 mid-write and restarted on the same data, then nothing acknowledged is lost or doubled',
    async () => {
      let killedAt = 0;
      const { row, problems, summary } = await runUnderFault(bench, {
        label: 'embedded kill -9 mid-write',
        warmupMs: 6000,
        // The kill takes the webhook dispatcher with it: a delivery answered in the 2 s before may
        // be sent again (its outcome died with the process), as in the cluster's kill -9.
        dispatcherKilledAt: () => killedAt,
        inject: async () => {
          killedAt = performance.now();
          await stopEmbedded('SIGKILL');
          await sleep(1000);
          await startEmbedded();
        },
        probe: async () => {
          const key = workload.casts[0]?.owner.key ?? '';
          const response = await fetch(`http://127.0.0.1:${port}/v1/svc/claims?limit=1`, {
            headers: { authorization: `Bearer ${key}` },
            signal: AbortSignal.timeout(2000),
          });
          await response.arrayBuffer();
          return response.status === 200;
        },
        afterMs: 6000,
      });
      rows.push(row);
      saveRows('2-embedded', 'The embedded default under a fault:', rows);
      process.stdout.write(`\n[faults] ${formatTable([row]).split('\n')[2]}\n`);
      for (const line of summary) process.stdout.write(`[faults]   ${line}\n`);
      saveProblems(row.fault, problems);
      keepData = summary.length > 0;
      expect(summary).toEqual([]);
    },
    6 * 60_000,
  );
});
