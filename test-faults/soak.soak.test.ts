import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { sleep } from '@svc/test-kit';
import { startClusterBench, type ClusterBench } from './cluster-bench';
import { REPORT_DIR } from './fault-report';
import type { FaultSpec } from './fault-run';
import { childrenNamed, percentile, soakReport, startSampler, type Watched } from './soak';

// The soak (issue #34, `make soak`, not in `make test`): the replicated cluster of
// replica-faults.test.ts (two processes of every service behind HAProxy, the suite's own
// PostgreSQL and RabbitMQ, the webhook receiver) under the fault workload at twice the rate its
// rows use, for SOAK_MINUTES (15). Every process's RSS is read by pid every 10 s; the workload's
// latencies are grouped by minute. Passes when no process's RSS grows more than 10 % after the
// first 3 minutes, every minute's p99 stays within 1.5x the first minute's, and the fault suite's
// checks hold (nothing lost or doubled, every webhook delivered, no 5xx, no death).

const ROOT = path.resolve(__dirname, '..');
const MINUTES = 60_000;
/** SOAK_MINUTES shortens the soak for a trial (issue #34: 15). */
const SOAK_MINUTES = Number(process.env.SOAK_MINUTES ?? 15);
/** Growth is measured after the first 3 minutes; a trial shorter than 9 minutes uses its first third. */
const FROM_MINUTE = Math.min(3, SOAK_MINUTES / 3);
const SAMPLE_EVERY_MS = 10_000;
/** The replica rows run 3 chains at once (cluster-bench.ts): twice their rate is 3 more. */
const EXTRA_RUNNERS = 3;
const LABEL = `soak ${SOAK_MINUTES} min at twice the rate`;
/** How long the checks may take once the load stops (see the spec). */
const SETTLE_MS = 10 * MINUTES;

let suite: ClusterBench;

beforeAll(async () => {
  if (!(SOAK_MINUTES > 0)) throw new Error(`SOAK_MINUTES must be a positive number, got ${SOAK_MINUTES}`);
  suite = await startClusterBench(
    ROOT,
    { file: '5-soak', title: 'Soak with two replicas of every service behind HAProxy:' },
    { replicas: 2 },
  );
  await suite.workload.setup(suite.env.cluster.adminToken, EXTRA_RUNNERS, suite.receiver.url);
}, 6 * MINUTES);

afterAll(async () => {
  await suite?.teardown();
}, 3 * MINUTES);

describe('the replicated cluster under twice the fault workload for 15 minutes', () => {
  it(
    'when it runs for 15 minutes, then no process grows by more than 10 % after minute 3, every minute p99 stays within 1.5x the first, and nothing is lost or doubled',
    async () => {
      const { cluster } = suite.env;
      const watched: Watched[] = [...cluster.processes.keys()].map((name) => ({
        name,
        pid: () => cluster.processes.get(name)?.child.pid,
        // The gateway's public port does not serve /metrics; the domain services serve it beside /healthz.
        ...(name.startsWith('gateway') ? {} : { metricsUrl: `${cluster.processes.get(name)?.url}/metrics` }),
      }));
      const [haproxy] = childrenNamed('haproxy');
      if (haproxy !== undefined) watched.push({ name: 'haproxy', pid: () => haproxy });

      let startedAt = 0;
      let sampler: ReturnType<typeof startSampler> | undefined;
      const say = (line: string) => process.stdout.write(`[soak] ${line}\n`);
      const spec: FaultSpec = {
        label: LABEL,
        warmupMs: 0,
        afterMs: 0,
        inject: async () => {
          startedAt = performance.now();
          sampler = startSampler(watched, SAMPLE_EVERY_MS);
          say(
            `${SOAK_MINUTES} min, ${suite.workload.casts.length} chains at once, ${watched.length} processes watched`,
          );
          for (let minute = 1; minute * MINUTES <= SOAK_MINUTES * MINUTES + 1; minute++) {
            await sleep(startedAt + minute * MINUTES - performance.now());
            const begun = suite.workload.client.records.filter(
              (r) =>
                r.window === LABEL &&
                r.startedAt >= startedAt + (minute - 1) * MINUTES &&
                r.startedAt < startedAt + minute * MINUTES,
            );
            const p99 = percentile(
              begun.map((r) => r.endedAt - r.startedAt).sort((a, b) => a - b),
              99,
            );
            const rss = [...(sampler?.samples ?? [])]
              .filter(([name]) => name.startsWith('detection'))
              .map(([name, s]) => `${name} ${((s.at(-1)?.rss ?? 0) / 2 ** 20).toFixed(0)} MiB`)
              .join(', ');
            say(`minute ${minute}: ${begun.length} requests finished, p99 ${p99.toFixed(0)} ms; ${rss}`);
          }
          const rest = startedAt + SOAK_MINUTES * MINUTES - performance.now();
          if (rest > 0) await sleep(rest);
          await sampler.stop();
        },
        probe: () => suite.everythingServes(),
        // Every chain of the soak is read back (about 3,600 in 15 minutes): the rows' 90 s is too
        // short for the checks alone (the 15-minute run of 2026-11-30 left 1,968 unchecked).
        settleMs: SETTLE_MS,
        // 2,700 to 3,600 chains of up to ten reads each: four at a time took over 6 minutes on
        // 2026-11-30 (643 chains not checked in time).
        checkConcurrency: 8,
        // No fault: any 502, 503 or 504 is a problem, as in the no-fault row.
        unavailable: 'any',
      };

      let checked: unknown;
      try {
        await suite.fault(spec);
      } catch (err) {
        checked = err;
      }
      await sampler?.stop();
      const records = [...suite.workload.client.records].filter((r) => r.window === LABEL);
      const report = soakReport(records, startedAt, SOAK_MINUTES * MINUTES, sampler?.samples ?? new Map(), {
        fromMinute: FROM_MINUTE,
        maxGrowth: 0.1,
        maxP99Ratio: 1.5,
      });
      const writes = records.filter((r) => r.idempotencyKey !== undefined).length;
      // How long the checks' reads took once the load stopped, by route (the slowest first).
      const reads = suite.bench.checker.records;
      const byRoute = new Map<string, number[]>();
      for (const r of reads) {
        const route = `${r.method} ${r.path.split('?')[0]?.replace(/\/[a-z]+_[A-Za-z0-9]+/g, '/:id')}`;
        byRoute.set(route, [...(byRoute.get(route) ?? []), r.endedAt - r.startedAt]);
      }
      const routes = [...byRoute]
        .map(([route, took]) => ({ route, took: took.sort((a, b) => a - b) }))
        .sort((a, b) => percentile(b.took, 50) - percentile(a.took, 50))
        .slice(0, 6)
        .map(
          ({ route, took }) =>
            `${route} ${took.length}x p50 ${percentile(took, 50).toFixed(0)} ms p99 ${percentile(took, 99).toFixed(0)} ms`,
        );
      const text = [
        `Soak: ${SOAK_MINUTES} min, two replicas of every service behind HAProxy, ${suite.workload.casts.length} chains at once (twice the replica rows' rate), ${writes} writes`,
        '',
        ...report.lines,
        `${checked === undefined ? 'PASS' : 'MISS'}: the fault suite's checks (nothing lost or doubled, webhooks delivered, no 5xx, no death)`,
        `checks' reads: ${reads.length}; slowest routes: ${routes.join('; ')}`,
      ].join('\n');
      for (const line of text.split('\n')) say(line);
      mkdirSync(REPORT_DIR, { recursive: true });
      writeFileSync(path.join(REPORT_DIR, '5-soak-figures.md'), `${text}\n\n`);
      if (checked !== undefined) throw checked;
      expect(report.misses).toEqual([]);
    },
    SOAK_MINUTES * MINUTES + SETTLE_MS + 6 * MINUTES,
  );
});
