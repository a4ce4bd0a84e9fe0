/**
 * Load generation for the gateway benchmark: autocannon against one target, a warm-up run whose
 * figures are thrown away, then the measured run.
 *
 * Latency percentiles come from our own microsecond histogram, fed by autocannon's per-response
 * event: autocannon's own latency histogram holds whole milliseconds (a p50 of "0" or "1"), too
 * coarse to judge a 1 ms budget.
 *
 * Used two ways (BENCH_LOAD in run.ts): imported and called in the servers' process ("inline"), or
 * run as this file's own process through child_process.fork ("fork", the default): the parent
 * sends one LoadSpec message, the child answers with one LoadMessage and exits.
 */
import autocannon from 'autocannon';
import { createHistogram } from 'node:perf_hooks';

export interface LoadSpec {
  name: string;
  url: string;
  headers: Record<string, string>;
  /** The exact body every response must carry; anything else counts as a mismatch. */
  expectBody: string;
  connections: number;
  pipelining: number;
  warmupSeconds: number;
  durationSeconds: number;
}

/** What went wrong on a run: any non-zero figure fails the benchmark. */
export interface Failures {
  non2xx: number;
  errors: number;
  timeouts: number;
  mismatches: number;
  /** Responses by status code, to say what the non-2xx were. */
  statusCodes: Record<string, number>;
}

export interface LoadResult {
  name: string;
  url: string;
  /** Responses in the measured run. */
  requests: number;
  durationSeconds: number;
  requestsPerSecond: number;
  p50Ms: number;
  p90Ms: number;
  p99Ms: number;
  meanMs: number;
  maxMs: number;
  measured: Failures;
  warmup: Failures;
}

/** Child → parent: 'measuring' when the warm-up is over, then the result or the error. */
export type LoadMessage =
  { kind: 'measuring' } | { kind: 'result'; result: LoadResult } | { kind: 'error'; error: string };

interface RunFigures {
  failures: Failures;
  requests: number;
  durationSeconds: number;
  latencyUs: ReturnType<typeof createHistogram>;
}

async function fire(spec: LoadSpec, durationSeconds: number): Promise<RunFigures> {
  const latencyUs = createHistogram();
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: spec.url,
        method: 'GET',
        headers: spec.headers,
        connections: spec.connections,
        pipelining: spec.pipelining,
        duration: durationSeconds,
        expectBody: spec.expectBody,
      },
      (err: unknown, done: autocannon.Result) => (err ? reject(err) : resolve(done)),
    );
    // autocannon 8 emits (client, statusCode, resBytes, responseTime); @types/autocannon 7 leaves out
    // `client`. The response time (float milliseconds) is the last argument either way.
    instance.on('response', (...args: unknown[]) => {
      const ms = args[args.length - 1];
      if (typeof ms === 'number') latencyUs.record(Math.max(1, Math.round(ms * 1000)));
    });
  });
  const statusCodes: Record<string, number> = {};
  for (const [code, stat] of Object.entries(result.statusCodeStats ?? {})) {
    statusCodes[code] = (stat as { count?: number }).count ?? 0;
  }
  return {
    failures: {
      non2xx: result.non2xx,
      errors: result.errors,
      timeouts: result.timeouts,
      mismatches: result.mismatches,
      statusCodes,
    },
    requests: result.requests.total,
    durationSeconds: result.duration,
    latencyUs,
  };
}

const ms = (us: number): number => Math.round(us) / 1000;

/** Warm-up (discarded), then the measured run; `onMeasuring` is called in between. */
export async function runLoad(
  spec: LoadSpec,
  onMeasuring: () => void = () => undefined,
): Promise<LoadResult> {
  const warmup = spec.warmupSeconds > 0 ? (await fire(spec, spec.warmupSeconds)).failures : noFailures();
  onMeasuring();
  const run = await fire(spec, spec.durationSeconds);
  return {
    name: spec.name,
    url: spec.url,
    requests: run.requests,
    durationSeconds: run.durationSeconds,
    requestsPerSecond: run.requests / run.durationSeconds,
    p50Ms: ms(run.latencyUs.percentile(50)),
    p90Ms: ms(run.latencyUs.percentile(90)),
    p99Ms: ms(run.latencyUs.percentile(99)),
    meanMs: ms(run.latencyUs.mean),
    maxMs: ms(run.latencyUs.max),
    measured: run.failures,
    warmup,
  };
}

function noFailures(): Failures {
  return { non2xx: 0, errors: 0, timeouts: 0, mismatches: 0, statusCodes: {} };
}

/** Forked child: one spec in, one result out. */
function serveOneSpec(): void {
  // The parent went away (interrupted, crashed): stop loading servers that are gone too.
  process.once('disconnect', () => process.exit(1));
  process.once('message', (spec: LoadSpec) => {
    runLoad(spec, () => process.send?.({ kind: 'measuring' } satisfies LoadMessage))
      .then((result): LoadMessage => ({ kind: 'result', result }))
      .catch((err: unknown): LoadMessage => ({
        kind: 'error',
        error: err instanceof Error ? (err.stack ?? err.message) : String(err),
      }))
      .then((message) => {
        process.send?.(message, () => process.exit(0));
      });
  });
}

if (require.main === module && process.send !== undefined) serveOneSpec();
