/**
 * The load of the identity-check throughput bench (throughput.ts), run as this file's own process
 * through child_process.fork so that autocannon does not share the servers' event loop: the parent
 * sends one LoadSpec, the child answers 'measuring' when its warm-up is over, then one result.
 *
 * A spec without bodies sends GET to its path and expects `expectBody` (the trivial route). A spec
 * with bodies sends POST, each request the next body in turn, and counts per kind of name how many
 * 200 answers matched a protected identity (`matchedMarker`): exact and one-typo names must match,
 * unknown names must not. Latency percentiles come from a microsecond histogram fed by autocannon's
 * per-response event (its own histogram holds whole milliseconds).
 */
import autocannon from 'autocannon';
import { fork, type ChildProcess } from 'node:child_process';
import { createHistogram } from 'node:perf_hooks';

export interface CheckBody {
  kind: string;
  body: string;
}

export interface LoadSpec {
  name: string;
  url: string;
  path: string;
  headers: Record<string, string>;
  /** GET: the exact body of every answer. */
  expectBody?: string;
  /** POST: the bodies sent in turn. */
  bodies?: CheckBody[];
  /** POST: a 200 answer holding this text matched a protected identity. */
  matchedMarker?: string;
  connections: number;
  warmupSeconds: number;
  durationSeconds: number;
}

export interface LoadResult {
  name: string;
  requests: number;
  durationSeconds: number;
  requestsPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  /** non-2xx, errors, timeouts and body mismatches of the measured run. */
  failures: number;
  statusCodes: Record<string, number>;
  /** POST only: per kind of name, 200 answers and those that matched a claimed identity. */
  matched: Record<string, { answers: number; claimed: number }>;
  /** POST only: the first answer of each status other than 200 (what the refusal said). */
  refusals: Record<string, string>;
}

export type LoadMessage =
  { kind: 'measuring' } | { kind: 'result'; result: LoadResult } | { kind: 'error'; error: string };

interface ClientContext {
  kind?: string;
}

async function fire(spec: LoadSpec, durationSeconds: number): Promise<LoadResult> {
  const latencyUs = createHistogram();
  const matched: LoadResult['matched'] = {};
  const refusals: Record<string, string> = {};
  const bodies = spec.bodies ?? [];
  let next = 0;
  const post: autocannon.Request = {
    method: 'POST',
    path: spec.path,
    headers: { ...spec.headers, 'content-type': 'application/json' },
    // One request in flight per connection (no pipelining): the context says what this answer is for.
    setupRequest: (request: autocannon.Request, context: ClientContext) => {
      const item = bodies[next++ % bodies.length] ?? { kind: 'none', body: '{}' };
      context.kind = item.kind;
      return { ...request, body: item.body };
    },
    onResponse: (status: number, body: string, context: ClientContext) => {
      if (status !== 200) {
        refusals[String(status)] ??= body.slice(0, 300);
        return;
      }
      const tally = (matched[context.kind ?? 'none'] ??= { answers: 0, claimed: 0 });
      tally.answers += 1;
      if (spec.matchedMarker !== undefined && body.includes(spec.matchedMarker)) tally.claimed += 1;
    },
  } as autocannon.Request;
  const result = await new Promise<autocannon.Result>((resolve, reject) => {
    const instance = autocannon(
      {
        url: spec.url + spec.path,
        connections: spec.connections,
        pipelining: 1,
        duration: durationSeconds,
        ...(bodies.length > 0
          ? { requests: [post] }
          : { method: 'GET' as const, headers: spec.headers, expectBody: spec.expectBody ?? '' }),
      },
      (err: unknown, done: autocannon.Result) => (err ? reject(err) : resolve(done)),
    );
    // autocannon 8 emits (client, statusCode, resBytes, responseTime): the time is the last argument.
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
    name: spec.name,
    requests: result.requests.total,
    durationSeconds: result.duration,
    requestsPerSecond: result.requests.total / result.duration,
    p50Ms: latencyUs.percentile(50) / 1000,
    p99Ms: latencyUs.percentile(99) / 1000,
    failures: result.non2xx + result.errors + result.timeouts + result.mismatches,
    statusCodes,
    matched,
    refusals,
  };
}

/** Warm-up (discarded), then the measured run; `onMeasuring` is called in between. */
export async function runLoad(spec: LoadSpec, onMeasuring: () => void): Promise<LoadResult> {
  if (spec.warmupSeconds > 0) await fire(spec, spec.warmupSeconds);
  onMeasuring();
  return fire(spec, spec.durationSeconds);
}

// Load generators running now; an interrupted bench ends them.
const children = new Set<ChildProcess>();

export function stopLoads(): void {
  for (const child of children) child.kill();
}

/** Parent side: `spec` run by this file in a forked child; `onMeasuring` when its warm-up is over. */
export function runLoadInChild(spec: LoadSpec, onMeasuring: () => void): Promise<LoadResult> {
  return new Promise((resolve, reject) => {
    // execArgv: [] so that flags given to this process (--cpu-prof) stay with the servers.
    const child = fork(__filename, [], {
      execArgv: [],
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    });
    children.add(child);
    let settled = false;
    child.on('message', (message: LoadMessage) => {
      if (message.kind === 'measuring') return onMeasuring();
      settled = true;
      if (message.kind === 'result') resolve(message.result);
      else reject(new Error(`load generator failed on ${spec.name}: ${message.error}`));
    });
    child.once('error', reject);
    child.once('exit', (code, signal) => {
      children.delete(child);
      if (!settled) reject(new Error(`load generator exited (${signal ?? code}) on ${spec.name}`));
    });
    child.send(spec);
  });
}

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
