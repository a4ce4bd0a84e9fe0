import { readdirSync, readFileSync } from 'node:fs';
import type { RequestRecord } from './client';

// The soak's measures (issue #34, `make soak`): every process's resident memory read from /proc
// by pid every few seconds, the workload's latency per minute, and the two criteria, printed
// per process and per minute with PASS/MISS.

/** One process to watch: its current pid (undefined while it is down). */
export interface Watched {
  name: string;
  pid(): number | undefined;
  /** Its Prometheus `/metrics`, to tell its JavaScript heap from the rest of its resident memory. */
  metricsUrl?: string;
}

/** One reading of a process. */
export interface Sample {
  /** Milliseconds since the soak began. */
  at: number;
  rss: number;
  /** From `/metrics` (prom-client's default metrics), when the process has one. */
  heapUsed?: number;
  heapTotal?: number;
  external?: number;
  /** V8's young generation (new space) and old space as committed, from `/metrics`. */
  newSpace?: number;
  oldSpace?: number;
}

/** Resident set size of a pid in bytes (VmRSS), or undefined when it is gone. */
export function residentBytes(pid: number): number | undefined {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const kib = /^VmRSS:\s+(\d+) kB/m.exec(status)?.[1];
    return kib === undefined ? undefined : Number(kib) * 1024;
  } catch {
    return undefined;
  }
}

/** The pids of this process's children running `command` (the balancer the cluster started). */
export function childrenNamed(command: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      // pid (comm) state ppid ...: comm may hold spaces, so read after its closing parenthesis.
      const comm = stat.slice(stat.indexOf('(') + 1, stat.lastIndexOf(')'));
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
      if (comm === command && ppid === process.pid) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

async function heapOf(
  url: string,
): Promise<Pick<Sample, 'heapUsed' | 'heapTotal' | 'external' | 'newSpace' | 'oldSpace'>> {
  const response = await fetch(url, { signal: AbortSignal.timeout(2000) });
  const text = await response.text();
  const metric = (name: string): number | undefined => {
    const value = new RegExp(`^${name} (\\S+)`, 'm').exec(text)?.[1];
    return value === undefined ? undefined : Number(value);
  };
  const space = (name: string): number | undefined => {
    const value = new RegExp(`^nodejs_heap_space_size_total_bytes\\{space="${name}"\\} (\\S+)`, 'm').exec(
      text,
    )?.[1];
    return value === undefined ? undefined : Number(value);
  };
  const out: Pick<Sample, 'heapUsed' | 'heapTotal' | 'external' | 'newSpace' | 'oldSpace'> = {};
  const newSpace = space('new');
  const oldSpace = space('old');
  if (newSpace !== undefined) out.newSpace = newSpace;
  if (oldSpace !== undefined) out.oldSpace = oldSpace;
  const heapUsed = metric('nodejs_heap_size_used_bytes');
  const heapTotal = metric('nodejs_heap_size_total_bytes');
  const external = metric('nodejs_external_memory_bytes');
  if (heapUsed !== undefined) out.heapUsed = heapUsed;
  if (heapTotal !== undefined) out.heapTotal = heapTotal;
  if (external !== undefined) out.external = external;
  return out;
}

export interface Sampler {
  samples: Map<string, Sample[]>;
  stop(): Promise<void>;
}

/** Reads every watched process every `everyMs` from now until stop(). */
export function startSampler(watched: Watched[], everyMs: number): Sampler {
  const started = performance.now();
  const samples = new Map<string, Sample[]>(watched.map((w) => [w.name, []]));
  let running = true;
  const take = async (): Promise<void> => {
    const at = performance.now() - started;
    await Promise.all(
      watched.map(async (w) => {
        const pid = w.pid();
        const rss = pid === undefined ? undefined : residentBytes(pid);
        if (rss === undefined) return;
        const heap = w.metricsUrl === undefined ? {} : await heapOf(w.metricsUrl).catch(() => ({}));
        samples.get(w.name)?.push({ at, rss, ...heap });
      }),
    );
  };
  const loop = (async () => {
    while (running) {
      const next = performance.now() + everyMs;
      await take();
      const rest = next - performance.now();
      if (rest > 0 && running) await new Promise((resolve) => setTimeout(resolve, rest));
    }
    await take();
  })();
  return {
    samples,
    stop: async () => {
      running = false;
      await loop;
    },
  };
}

export function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

function median(values: number[]): number | undefined {
  return values.length === 0
    ? undefined
    : percentile(
        [...values].sort((a, b) => a - b),
        50,
      );
}

export interface SoakCriteria {
  /** Resident growth is measured from this minute to the end (issue #34: 3). */
  fromMinute: number;
  /** Largest growth allowed from `fromMinute` to the end, as a fraction (0.1). */
  maxGrowth: number;
  /** Largest p99 of a minute allowed, as a multiple of the first minute's (1.5). */
  maxP99Ratio: number;
}

export interface SoakReport {
  lines: string[];
  misses: string[];
}

const MIB = 2 ** 20;
const mib = (bytes: number | undefined): string => (bytes === undefined ? '–' : (bytes / MIB).toFixed(0));
const clock = (ms: number): string => {
  const seconds = Math.round(ms / 1000);
  return `${Math.floor(seconds / 60)}:${String(seconds % 60).padStart(2, '0')}`;
};

/**
 * The soak's figures and verdicts: per minute, the requests begun in it with their p50 and p99
 * (across retries, as the integrator waits); per process, its resident memory at `fromMinute`
 * (the median of the readings of the half-minute before it) and at the end (the median of the
 * last half-minute's), with the growth; then PASS/MISS for each criterion.
 */
export function soakReport(
  records: RequestRecord[],
  startedAt: number,
  durationMs: number,
  samples: Map<string, Sample[]>,
  criteria: SoakCriteria,
): SoakReport {
  const lines: string[] = [];
  const misses: string[] = [];
  const minutes = Math.max(1, Math.ceil(durationMs / 60_000 - 1e-9));
  const byMinute: number[][] = Array.from({ length: minutes }, () => []);
  for (const r of records) {
    const minute = Math.floor((r.startedAt - startedAt) / 60_000);
    if (minute < 0 || minute >= minutes) continue;
    byMinute[minute]?.push(r.endedAt - r.startedAt);
  }
  lines.push('minute | requests | p50 ms | p99 ms | p99 / minute 1');
  const first = percentile(
    [...(byMinute[0] ?? [])].sort((a, b) => a - b),
    99,
  );
  let worst = { minute: 1, ratio: 0 };
  byMinute.forEach((latencies, i) => {
    const sorted = [...latencies].sort((a, b) => a - b);
    const p99 = percentile(sorted, 99);
    const ratio = first > 0 ? p99 / first : 0;
    if (ratio > worst.ratio) worst = { minute: i + 1, ratio };
    lines.push(
      `${String(i + 1).padStart(6)} | ${String(sorted.length).padStart(8)} | ${percentile(sorted, 50).toFixed(0).padStart(6)} | ${p99.toFixed(0).padStart(6)} | ${ratio.toFixed(2)}`,
    );
  });
  const latencyOk = first > 0 && worst.ratio <= criteria.maxP99Ratio;
  const latencyVerdict = `every minute's p99 <= ${criteria.maxP99Ratio}x minute 1's (${first.toFixed(0)} ms): worst minute ${worst.minute}, ${worst.ratio.toFixed(2)}x`;

  const from = criteria.fromMinute * 60_000;
  const window = 30_000;
  lines.push('');
  lines.push(
    `process | RSS MiB at ${clock(from)} | at end (${clock(durationMs)}) | growth | heap used / total (new + old space), external MiB at ${clock(from)} -> end`,
  );
  let worstGrowth = { name: '', growth: -Infinity };
  const unread: string[] = [];
  for (const [name, taken] of samples) {
    const around = (t: number) => taken.filter((s) => s.at > t - window && s.at <= t + 1);
    const atFrom = around(from);
    const atEnd = taken.filter((s) => s.at > durationMs - window);
    const rssFrom = median(atFrom.map((s) => s.rss));
    const rssEnd = median(atEnd.map((s) => s.rss));
    if (rssFrom === undefined || rssEnd === undefined) {
      unread.push(name);
      lines.push(`${name} | not read (the process was down)`);
      continue;
    }
    const growth = rssEnd / rssFrom - 1;
    if (growth > worstGrowth.growth) worstGrowth = { name, growth };
    const heap = (s: Sample[]) =>
      s.length === 0 || s.at(-1)?.heapUsed === undefined
        ? ''
        : `${mib(median(s.map((x) => x.heapUsed ?? 0)))} / ${mib(median(s.map((x) => x.heapTotal ?? 0)))} (${mib(median(s.map((x) => x.newSpace ?? 0)))} + ${mib(median(s.map((x) => x.oldSpace ?? 0)))}), ${mib(median(s.map((x) => x.external ?? 0)))}`;
    const heapCell = heap(atFrom) === '' ? '' : `${heap(atFrom)} -> ${heap(atEnd)}`;
    lines.push(
      `${name} | ${mib(rssFrom)} | ${mib(rssEnd)} | ${growth >= 0 ? '+' : ''}${(growth * 100).toFixed(1)} %${growth > criteria.maxGrowth ? ' MISS' : ''} | ${heapCell}`,
    );
    if (growth > criteria.maxGrowth)
      misses.push(`${name}'s RSS grew ${(growth * 100).toFixed(1)} % after ${clock(from)}`);
  }
  for (const name of unread) misses.push(`${name}'s RSS could not be read at ${clock(from)} and at the end`);
  const memoryOk = unread.length === 0 && worstGrowth.growth <= criteria.maxGrowth;
  lines.push('');
  lines.push(
    `${memoryOk ? 'PASS' : 'MISS'}: RSS of every process grows <= ${(criteria.maxGrowth * 100).toFixed(0)} % after ${clock(from)}: worst ${worstGrowth.name} ${(worstGrowth.growth * 100).toFixed(1)} %`,
  );
  lines.push(`${latencyOk ? 'PASS' : 'MISS'}: ${latencyVerdict}`);
  if (!latencyOk) misses.push(latencyVerdict);
  return { lines, misses };
}
