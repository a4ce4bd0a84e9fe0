/** The gateway benchmark's verdict: a table for people, goals with PASS/MISS, and one JSON line for machines. */
import type { Failures, LoadResult } from './load';

/** The gateway's performance goals. */
export const GOALS = {
  /** "adds at most 0.3 ms at p50 over the bare proxy": gateway p50 − bare proxy p50 (issue #33). */
  maxAddedP50Ms: 0.3,
  /** "keeps at least 85% of the bare proxy's throughput": gateway req/s ÷ bare proxy req/s (issue #33). */
  minThroughputRatio: 0.85,
} as const;

export interface Settings {
  load: 'fork' | 'inline';
  connections: number;
  pipelining: number;
  warmupSeconds: number;
  durationSeconds: number;
  breakdown: boolean;
  /** BENCH_RUNS: rounds of the four targets, one after another; the verdict is on the medians. */
  runs: number;
}

/** The servers' process CPU during a measured run (BENCH_LOAD=inline: autocannon's too). */
export interface ServerCpu {
  /** CPU time (user + system) per response, in µs. */
  microsPerRequest: number;
  /** CPU time ÷ the run's wall time: the share of one core the process used. */
  busyShare: number;
}

export interface Results {
  bare: LoadResult;
  direct: LoadResult;
  gateway: LoadResult;
  /** The bare Node proxy in front of the same service: the floor under any gateway in Node. */
  proxy: LoadResult;
  /** The servers' process CPU per request in each target's measured run. */
  cpu: { bare: ServerCpu; direct: ServerCpu; gateway: ServerCpu; proxy: ServerCpu };
}

/** Mean time a gateway request spends in each stage (BENCH_BREAKDOWN=1), in ms. */
export interface Breakdown {
  requests: number;
  keyAuthAndCountMeanMs: number;
  keyAuthAndCountP50Ms: number;
  keyAuthAndCountP99Ms: number;
  keyAuthAndCountMaxMs: number;
  upstreamForwardMeanMs: number;
  upstreamForwardP50Ms: number;
}

export interface Verdict {
  addedP50Ms: number;
  throughputRatio: number;
  latencyGoalMet: boolean;
  throughputGoalMet: boolean;
}

export function verdictOf(results: Results): Verdict {
  const addedP50Ms = results.gateway.p50Ms - results.proxy.p50Ms;
  const throughputRatio = results.gateway.requestsPerSecond / results.proxy.requestsPerSecond;
  return {
    addedP50Ms,
    throughputRatio,
    latencyGoalMet: addedP50Ms <= GOALS.maxAddedP50Ms,
    throughputGoalMet: throughputRatio >= GOALS.minThroughputRatio,
  };
}

/** Every non-2xx, error, timeout or body mismatch, warm-up included; empty when the runs were clean. */
export function problemsOf(results: Results): string[] {
  const problems: string[] = [];
  for (const result of [results.bare, results.direct, results.gateway, results.proxy]) {
    const describe = (phase: string, f: Failures): void => {
      if (f.non2xx + f.errors + f.timeouts + f.mismatches === 0) return;
      problems.push(
        `${result.name} (${phase}): ${f.non2xx} non-2xx, ${f.errors} errors, ${f.timeouts} timeouts, ` +
          `${f.mismatches} body mismatches; status codes ${JSON.stringify(f.statusCodes)}`,
      );
    };
    describe('warm-up', result.warmup);
    describe('measured', result.measured);
  }
  return problems;
}

const fixed = (value: number, digits: number): string => value.toFixed(digits);
const signed = (value: number): string => `${value >= 0 ? '+' : '−'}${Math.abs(value).toFixed(3)}`;

export function printReport(settings: Settings, results: Results, breakdown: Breakdown | undefined): void {
  const verdict = verdictOf(results);
  const rows = [
    ['target', 'req/s', 'p50 ms', 'p99 ms', 'requests'],
    ...[results.bare, results.direct, results.gateway, results.proxy].map((r) => [
      r.name,
      fixed(r.requestsPerSecond, 0),
      fixed(r.p50Ms, 3),
      fixed(r.p99Ms, 3),
      String(r.requests),
    ]),
  ];
  const widths = rows[0]!.map((_, column) => Math.max(...rows.map((row) => row[column]!.length)));
  const line = (row: string[]): string =>
    row
      .map((cell, column) => (column === 0 ? cell.padEnd(widths[column]!) : cell.padStart(widths[column]!)))
      .join('   ');

  console.log('');
  console.log(rows.map(line).join('\n'));
  console.log('');
  const proxyRatio = results.proxy.requestsPerSecond / results.direct.requestsPerSecond;
  console.log(
    `bare Node proxy:              ${(proxyRatio * 100).toFixed(1)}% of direct (${signed(results.proxy.p50Ms - results.direct.p50Ms)} ms at p50): ` +
      `the best any gateway in Node could keep here, the baseline of the goals`,
  );
  console.log(
    `gateway added latency at p50: ${signed(verdict.addedP50Ms)} ms over the bare proxy ` +
      `(${signed(results.gateway.p50Ms - results.direct.p50Ms)} ms over direct)`,
  );
  console.log(
    `gateway throughput ratio:     ${(verdict.throughputRatio * 100).toFixed(1)}% of the bare proxy ` +
      `(${((results.gateway.requestsPerSecond / results.direct.requestsPerSecond) * 100).toFixed(1)}% of direct)`,
  );
  printCpu(settings, results);
  if (breakdown !== undefined) {
    console.log(
      `gateway time per request:     key auth + rate count (cache and lease; PostgreSQL when a lease is empty) mean ${fixed(breakdown.keyAuthAndCountMeanMs, 3)} ms, ` +
        `p50 ${fixed(breakdown.keyAuthAndCountP50Ms, 3)} ms, p99 ${fixed(breakdown.keyAuthAndCountP99Ms, 3)} ms, ` +
        `max ${fixed(breakdown.keyAuthAndCountMaxMs, 3)} ms; upstream forward mean ${fixed(breakdown.upstreamForwardMeanMs, 3)} ms, ` +
        `p50 ${fixed(breakdown.upstreamForwardP50Ms, 3)} ms (${breakdown.requests} requests, wrapped timers)`,
    );
  }
  console.log('');
  console.log(
    `goal "adds at most ${GOALS.maxAddedP50Ms} ms at p50 over the bare proxy":      ${verdict.latencyGoalMet ? 'PASS' : 'MISS'} (${signed(verdict.addedP50Ms)} ms)`,
  );
  console.log(
    `goal "keeps at least ${GOALS.minThroughputRatio * 100}% of the bare proxy's throughput": ${verdict.throughputGoalMet ? 'PASS' : 'MISS'} (${(verdict.throughputRatio * 100).toFixed(1)}%)`,
  );

  const figures = (r: LoadResult) => ({
    requestsPerSecond: round(r.requestsPerSecond, 1),
    p50Ms: r.p50Ms,
    p90Ms: r.p90Ms,
    p99Ms: r.p99Ms,
    meanMs: r.meanMs,
    maxMs: r.maxMs,
    requests: r.requests,
    durationSeconds: round(r.durationSeconds, 3),
  });
  const json = {
    bench: 'gateway',
    load: settings.load,
    connections: settings.connections,
    pipelining: settings.pipelining,
    warmupSeconds: settings.warmupSeconds,
    durationSeconds: settings.durationSeconds,
    runs: settings.runs,
    node: process.version,
    targets: {
      bareExpress: figures(results.bare),
      direct: figures(results.direct),
      gateway: figures(results.gateway),
      bareProxy: figures(results.proxy),
    },
    bareProxyRatio: round(results.proxy.requestsPerSecond / results.direct.requestsPerSecond, 4),
    gatewayAddedP50Ms: round(verdict.addedP50Ms, 3),
    throughputRatio: round(verdict.throughputRatio, 4),
    goals: {
      addedP50Ms: { max: GOALS.maxAddedP50Ms, pass: verdict.latencyGoalMet },
      throughputRatio: { min: GOALS.minThroughputRatio, pass: verdict.throughputGoalMet },
    },
    cpuMicrosPerRequest: {
      bareExpress: round(results.cpu.bare.microsPerRequest, 1),
      direct: round(results.cpu.direct.microsPerRequest, 1),
      gateway: round(results.cpu.gateway.microsPerRequest, 1),
      bareProxy: round(results.cpu.proxy.microsPerRequest, 1),
      gatewayBudgetForGoal: round(budgetMicros(results) - results.cpu.direct.microsPerRequest, 1),
    },
    cpuBusyShare: {
      bareExpress: round(results.cpu.bare.busyShare, 3),
      direct: round(results.cpu.direct.busyShare, 3),
      gateway: round(results.cpu.gateway.busyShare, 3),
      bareProxy: round(results.cpu.proxy.busyShare, 3),
    },
    ...(breakdown === undefined ? {} : { breakdown }),
  };
  console.log(JSON.stringify(json));
}

/**
 * What each request cost the servers' process in CPU, and what the throughput goal leaves the
 * gateway. The gateway and the service share that process (one event loop), so while it is
 * saturated, gateway ÷ direct throughput = direct CPU ÷ (direct CPU + what the gateway adds): the
 * goal holds only if the gateway adds at most (1 ÷ goal − 1) × the direct request's CPU.
 */
function printCpu(settings: Settings, results: Results): void {
  const { cpu } = results;
  const us = (value: number): string => `${value.toFixed(1)} µs`;
  const busy = (c: ServerCpu): string => `${(c.busyShare * 100).toFixed(0)}% of a core`;
  const gatewayAdds = cpu.gateway.microsPerRequest - cpu.direct.microsPerRequest;
  const proxyAdds = cpu.proxy.microsPerRequest - cpu.direct.microsPerRequest;
  const budget = budgetMicros(results) - cpu.direct.microsPerRequest;
  const whose = settings.load === 'inline' ? "servers' process, autocannon included" : "servers' process";
  console.log(
    `CPU per request (${whose}): direct ${us(cpu.direct.microsPerRequest)} (${busy(cpu.direct)}), ` +
      `through the gateway ${us(cpu.gateway.microsPerRequest)} (${busy(cpu.gateway)}), ` +
      `bare Node proxy ${us(cpu.proxy.microsPerRequest)} (${busy(cpu.proxy)})`,
  );
  console.log(
    `CPU the hop adds:             the gateway ${us(gatewayAdds)}, the bare Node proxy ${us(proxyAdds)}; ` +
      `${GOALS.minThroughputRatio * 100}% of the bare proxy leaves a gateway ${us(budget)} on this machine ` +
      `(bare proxy ÷ ${GOALS.minThroughputRatio} − direct)`,
  );
}

/** The CPU a request through the gateway may cost the servers' process and keep GOALS.minThroughputRatio of the bare proxy. */
function budgetMicros(results: Results): number {
  return results.cpu.proxy.microsPerRequest / GOALS.minThroughputRatio;
}

function round(value: number, digits: number): number {
  const factor = 10 ** digits;
  return Math.round(value * factor) / factor;
}
