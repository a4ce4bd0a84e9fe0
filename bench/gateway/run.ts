/**
 * Gateway overhead benchmark (make bench-gateway): requests per second, p50 and p99 of
 *   1. a bare express app (GET /hello),
 *   2. a trivial createService service called directly with an internal JWT (GET /v1/svc/ping),
 *   3. the same service through the gateway with a platform key (key auth and rate counting from
 *      the replica's key cache and leases of budget, ADR 0025; internal JWT, forwarding),
 *   4. the same service through a bare Node proxy (node:http in, undici out, nothing else): the
 *      floor any gateway in Node stands on, printed as the best ratio a gateway could reach here,
 * then the gateway's added p50 latency and kept throughput against its goals.
 *
 * The three servers share this process. autocannon runs in a forked child by default
 * (BENCH_LOAD=fork) so that load generation does not share the servers' event loop;
 * BENCH_LOAD=inline runs it here instead (see bench/README.md).
 *
 * The four targets are measured in turn, BENCH_RUNS times (default 3, alternated: the machine's speed
 * drifts over minutes), and the goals are judged on the medians of each figure.
 *
 * Environment: BENCH_RUNS (default 3), BENCH_DURATION (s, default 10), BENCH_WARMUP (s, default 3), BENCH_CONNECTIONS
 * (default 10), BENCH_PIPELINING (default 1), BENCH_LOAD (fork | inline), BENCH_BREAKDOWN=1
 * (time the gateway's stages), TEST_DATABASE_URL (PostgreSQL server, default
 * postgres://postgres@127.0.0.1:5432/postgres).
 *
 * Exit code 0 when every request got the expected 2xx answer (goals missed or not), 1 otherwise.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { createHistogram } from 'node:perf_hooks';
import { createLogger } from '@svc/logger';
import { signInternalToken } from '@svc/service-kit';
import { runLoad, type LoadMessage, type LoadResult, type LoadSpec } from './load';
import {
  printReport,
  problemsOf,
  type Breakdown,
  type Results,
  type ServerCpu,
  type Settings,
} from './report';
import {
  HELLO_BODY,
  HELLO_PATH,
  JWT_SECRET,
  PING_BODY,
  PING_PATH,
  startBareExpress,
  startBareProxy,
  startBenchGateway,
  startPingService,
  type BenchGateway,
  type Running,
} from './servers';

function intFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 0 || (value === 0 && name !== 'BENCH_WARMUP')) {
    throw new Error(
      `${name} must be a ${name === 'BENCH_WARMUP' ? 'non-negative' : 'positive'} integer, got "${raw}"`,
    );
  }
  return value;
}

function readSettings(): Settings {
  const load = process.env.BENCH_LOAD ?? 'fork';
  if (load !== 'fork' && load !== 'inline')
    throw new Error(`BENCH_LOAD must be fork or inline, got "${load}"`);
  return {
    load,
    connections: intFromEnv('BENCH_CONNECTIONS', 10),
    pipelining: intFromEnv('BENCH_PIPELINING', 1),
    warmupSeconds: intFromEnv('BENCH_WARMUP', 3),
    durationSeconds: intFromEnv('BENCH_DURATION', 10),
    breakdown: process.env.BENCH_BREAKDOWN === '1' || process.env.BENCH_BREAKDOWN === 'true',
    runs: intFromEnv('BENCH_RUNS', 3),
  };
}

// Load generators running now; an interrupted benchmark ends them.
const children = new Set<ChildProcess>();

/** autocannon in a child process of its own: its CPU time is not taken from the servers' event loop. */
function runLoadInChild(spec: LoadSpec, onMeasuring: () => void): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    // execArgv: [] so that flags given to this process (--cpu-prof, --inspect) stay with the servers.
    const child = fork(join(__dirname, 'load.js'), [], {
      execArgv: [],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    children.add(child);
    let settled = false;
    child.on('message', (message: LoadMessage) => {
      if (message.kind === 'measuring') {
        onMeasuring();
        return;
      }
      settled = true;
      if (message.kind === 'result') resolve(message.result);
      else reject(new Error(`load generator failed on ${spec.name}: ${message.error}`));
    });
    child.once('error', (err) => {
      settled = true;
      reject(err);
    });
    child.once('exit', (code, signal) => {
      children.delete(child);
      if (!settled)
        reject(new Error(`load generator exited (${signal ?? code}) without a result for ${spec.name}`));
    });
    child.send(spec);
  });
}

/**
 * The servers' process CPU (user + system) during one measured run, per response, and as a share of
 * one core over the run: near 100 % means the process was saturated, so its req/s is 1 ÷ its CPU per
 * request. The run ends when autocannon stops; the figure is read when its result arrives, a few
 * idle milliseconds later, which adds nothing to CPU time.
 */
function serverCpuOf(used: NodeJS.CpuUsage, result: LoadResult): ServerCpu {
  const micros = used.user + used.system;
  return {
    microsPerRequest: result.requests > 0 ? micros / result.requests : 0,
    busyShare: micros / (result.durationSeconds * 1e6),
  };
}

/** One request before the load: a wrong status or body is reported with what the server said. */
async function preflight(spec: LoadSpec): Promise<void> {
  const response = await fetch(spec.url, { headers: spec.headers });
  const body = await response.text();
  if (response.status !== 200 || body !== spec.expectBody) {
    throw new Error(
      `${spec.name}: GET ${spec.url} answered ${response.status} ${body} (expected 200 ${spec.expectBody})`,
    );
  }
}

/** Times the gateway's two awaits per request (key auth + rate count: from memory, or PostgreSQL when a lease is empty; the upstream call) by wrapping them. */
function instrumentGateway(gateway: BenchGateway): { start(): void; read(): Breakdown } {
  const { store, upstreams } = gateway.running.gateway.context;
  const auth = createHistogram();
  const forward = createHistogram();
  let recording = false;
  const timed = <A extends unknown[], R>(fn: (...args: A) => Promise<R>, into: typeof auth) => {
    return async (...args: A): Promise<R> => {
      const started = process.hrtime.bigint();
      try {
        return await fn(...args);
      } finally {
        if (recording) into.record(Math.max(1, Number((process.hrtime.bigint() - started) / 1000n)));
      }
    };
  };
  store.authenticateAndCount = timed(store.authenticateAndCount.bind(store), auth);
  upstreams.forward = timed(upstreams.forward.bind(upstreams), forward);
  return {
    start: () => {
      auth.reset();
      forward.reset();
      recording = true;
    },
    read: () => ({
      requests: auth.count,
      keyAuthAndCountMeanMs: Math.round(auth.mean) / 1000,
      keyAuthAndCountP50Ms: auth.percentile(50) / 1000,
      keyAuthAndCountP99Ms: auth.percentile(99) / 1000,
      keyAuthAndCountMaxMs: auth.max / 1000,
      upstreamForwardMeanMs: Math.round(forward.mean) / 1000,
      upstreamForwardP50Ms: forward.percentile(50) / 1000,
    }),
  };
}

async function main(): Promise<number> {
  const settings = readSettings();
  const logger = createLogger('bench', { level: 'silent' });
  const started: Running[] = [];
  let stopping: Promise<boolean> | undefined;
  // Reverse order of start: the gateway (and its database) first, the service it calls next.
  const stopAll = (): Promise<boolean> => {
    stopping ??= (async () => {
      for (const child of children) child.kill();
      let clean = true;
      for (const server of started.reverse()) {
        await server.stop().catch((err: unknown) => {
          clean = false;
          console.error('bench-gateway: cleanup failed:', err);
        });
      }
      return clean;
    })();
    return stopping;
  };
  let interrupted = false;
  process.once('SIGINT', () => {
    interrupted = true;
    console.error('bench-gateway: interrupted; stopping the servers and dropping the database');
    void stopAll().finally(() => process.exit(130));
  });

  let exitCode = 0;
  try {
    const bare = await startBareExpress();
    started.push(bare);
    const ping = await startPingService(logger);
    started.push(ping);
    const gateway = await startBenchGateway(ping.url, logger);
    started.push(gateway);
    const breakdown = settings.breakdown ? instrumentGateway(gateway) : undefined;

    // Long enough for the whole run, however long BENCH_DURATION makes it.
    const ttlSeconds = 3 * (settings.warmupSeconds + settings.durationSeconds) + 600;
    const internalToken = signInternalToken(JWT_SECRET, gateway.claims, { ttlSeconds });
    const proxy = await startBareProxy(ping.url, internalToken);
    started.push(proxy);
    const common = {
      connections: settings.connections,
      pipelining: settings.pipelining,
      warmupSeconds: settings.warmupSeconds,
      durationSeconds: settings.durationSeconds,
    };
    const gatewaySpec: LoadSpec = {
      ...common,
      name: 'through gateway',
      url: gateway.url + PING_PATH,
      headers: { authorization: `Bearer ${gateway.key}` },
      expectBody: PING_BODY,
    };
    const specs: LoadSpec[] = [
      { ...common, name: 'bare express', url: bare.url + HELLO_PATH, headers: {}, expectBody: HELLO_BODY },
      {
        ...common,
        name: 'direct service',
        url: ping.url + PING_PATH,
        headers: { authorization: `Bearer ${internalToken}` },
        expectBody: PING_BODY,
      },
      { ...common, name: 'bare Node proxy', url: proxy.url + PING_PATH, headers: {}, expectBody: PING_BODY },
      gatewaySpec,
    ];
    for (const spec of specs) await preflight(spec);

    console.log(
      `bench-gateway: ${settings.connections} connections, pipelining ${settings.pipelining}, ` +
        `${settings.warmupSeconds} s warm-up + ${settings.durationSeconds} s measured per target; ` +
        `autocannon ${settings.load === 'fork' ? 'in a forked child process' : 'in the servers’ process'} ` +
        `(BENCH_LOAD=${settings.load}); all servers in one process; node ${process.version}, ${availableParallelism()} CPUs`,
    );
    const rounds: { result: LoadResult; cpu: ServerCpu }[][] = specs.map(() => []);
    for (let round = 1; round <= settings.runs; round++) {
      for (const [index, spec] of specs.entries()) {
        console.log(`bench-gateway: run ${round}/${settings.runs}, measuring ${spec.name} (${spec.url})`);
        // The breakdown and the CPU count the measured run only, not its warm-up.
        let cpuAtStart: NodeJS.CpuUsage | undefined;
        const onMeasuring = (): void => {
          cpuAtStart = process.cpuUsage();
          if (spec === gatewaySpec) breakdown?.start();
        };
        const result =
          settings.load === 'fork'
            ? await runLoadInChild(spec, onMeasuring)
            : await runLoad(spec, onMeasuring);
        const used = serverCpuOf(process.cpuUsage(cpuAtStart), result);
        rounds[index]!.push({ result, cpu: used });
        console.log(
          `bench-gateway:   ${result.requestsPerSecond.toFixed(0)} req/s, p50 ${result.p50Ms.toFixed(3)} ms, ` +
            `p99 ${result.p99Ms.toFixed(3)} ms, ${used.microsPerRequest.toFixed(1)} µs CPU a request`,
        );
      }
    }
    const measured = rounds.map((runs) => medianResult(runs.map((run) => run.result)));
    const cpu = rounds.map((runs) => medianCpu(runs.map((run) => run.cpu)));
    const [bareResult, directResult, proxyResult, gatewayResult] = measured as [
      LoadResult,
      LoadResult,
      LoadResult,
      LoadResult,
    ];
    const [bareCpu, directCpu, proxyCpu, gatewayCpu] = cpu as [ServerCpu, ServerCpu, ServerCpu, ServerCpu];
    const results: Results = {
      bare: bareResult,
      direct: directResult,
      gateway: gatewayResult,
      proxy: proxyResult,
      cpu: { bare: bareCpu, direct: directCpu, gateway: gatewayCpu, proxy: proxyCpu },
    };

    printReport(settings, results, breakdown?.read());
    const problems = problemsOf(results);
    if (problems.length > 0) {
      console.error('\nbench-gateway: FAILED, not every request got the expected 2xx answer:');
      for (const problem of problems) console.error(`  ${problem}`);
      exitCode = 1;
    }
  } catch (err) {
    if (!interrupted) console.error('bench-gateway: FAILED:', err);
    exitCode = 1;
  }
  if (!(await stopAll())) exitCode = 1;
  return exitCode;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
}

/** One target's runs as one: the median of each figure, the requests and failures of all runs. */
function medianResult(runs: LoadResult[]): LoadResult {
  const first = runs[0]!;
  const of = (pick: (run: LoadResult) => number): number => median(runs.map(pick));
  const sum = (pick: (failures: LoadResult['measured']) => number, phase: 'measured' | 'warmup'): number =>
    runs.reduce((total, run) => total + pick(run[phase]), 0);
  const failures = (phase: 'measured' | 'warmup'): LoadResult['measured'] => ({
    non2xx: sum((f) => f.non2xx, phase),
    errors: sum((f) => f.errors, phase),
    timeouts: sum((f) => f.timeouts, phase),
    mismatches: sum((f) => f.mismatches, phase),
    statusCodes: Object.assign({}, ...runs.map((run) => run[phase].statusCodes)) as Record<string, number>,
  });
  return {
    ...first,
    requests: runs.reduce((total, run) => total + run.requests, 0),
    durationSeconds: runs.reduce((total, run) => total + run.durationSeconds, 0),
    requestsPerSecond: of((run) => run.requestsPerSecond),
    p50Ms: of((run) => run.p50Ms),
    p90Ms: of((run) => run.p90Ms),
    p99Ms: of((run) => run.p99Ms),
    meanMs: of((run) => run.meanMs),
    maxMs: Math.max(...runs.map((run) => run.maxMs)),
    measured: failures('measured'),
    warmup: failures('warmup'),
  };
}

function medianCpu(runs: ServerCpu[]): ServerCpu {
  return {
    microsPerRequest: median(runs.map((run) => run.microsPerRequest)),
    busyShare: median(runs.map((run) => run.busyShare)),
  };
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error('bench-gateway: FAILED:', err);
    process.exit(1);
  },
);
