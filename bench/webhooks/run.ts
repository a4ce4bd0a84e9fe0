/**
 * Webhook dispatcher benchmark (make bench-webhooks): BENCH_EVENTS internal events (default
 * 10 000) to 100 platforms, each with one endpoint on a local node:http receiver; a tenth of the
 * receivers are slow (they answer after BENCH_SLOW_MS, default 2000 ms).
 *
 * The dispatcher runs in this process (startWebhookDispatcher) on a fresh PostgreSQL database and
 * an InProcessMessageBus, with SVC_ALLOW_PRIVATE_FETCH=true and its default settings otherwise
 * (WEBHOOK_CONCURRENCY 32, one delivery in flight per endpoint). The events are
 * enforcement.grace_period.reminder envelopes built with the contracts definitions; each becomes
 * one grace_period.reminder delivery to its platform's endpoint.
 *
 * A slow endpoint is served one delivery at a time, so it takes BENCH_SLOW_MS per event: each
 * slow platform gets only BENCH_SLOW_EVENTS events (default 20, i.e. about 40 s of sending) and
 * the healthy platforms share the rest round-robin. That keeps a run well under 3 minutes.
 *
 * Printed: deliveries per second (all, and healthy endpoints only), p50/p90/p99/max
 * event-to-delivery latency (publish call -> receiver got the request) for the healthy and the
 * slow endpoints separately, and the count check: every event arrived exactly once per endpoint,
 * deduplicated by webhook-id (duplicates, allowed by at-least-once, are counted apart).
 *
 * BENCH_RUNS (default 3) runs of the whole (burst, then its baseline) alternate, each on a fresh
 * database; the goals are judged on the medians of the runs (issue #33: figures move two- to
 * three-fold between days here, so only same-run ratios count).
 *
 * Environment: BENCH_RUNS (default 3), BENCH_EVENTS (default 10000), BENCH_SLOW_EVENTS (per slow platform, default 20),
 * BENCH_SLOW_MS (default 2000), BENCH_RATE (events published per second; default 0: all at once),
 * BENCH_CONCURRENCY (WEBHOOK_CONCURRENCY, default 32), BENCH_TIMEOUT (s to wait for the
 * deliveries, default 150), BENCH_DB_CONNECTIONS (the dispatcher's pool size; default the
 * service's own, 10), BENCH_STAGES=1 (time every statement and transaction of the dispatcher and
 * print where the database time went: ./timed-database.ts), BENCH_TIMELINE=1 (healthy deliveries
 * per 100 ms from the first publish), BENCH_MAX_PER_LEASE (the worker's batch per endpoint lease;
 * default the service's own, 20), TEST_DATABASE_URL (PostgreSQL server,
 * default postgres://postgres@127.0.0.1:5432/postgres).
 *
 * Then, in the same run, the baseline: the bodies the healthy receivers got, sent again as plain
 * signed POSTs from this process to the same receivers (./plain-posts.ts), three passes and their
 * median kept (the first, with new connections and cold code, is the slowest). Goals (issues #18,
 * #33): the dispatcher's healthy deliveries/s at least half of the baseline's POSTs/s, and healthy
 * p99 at most 3 s for the burst; each printed with PASS/MISS on the median of the runs, and a last
 * JSON line with every figure of every run.
 *
 * Exit code 0 when every event arrived at its endpoint, 1 when one was lost (or the run failed).
 */
import { oneRun, type RunFigures, type Settings } from './one-run';
import { intFromEnv, median } from './receivers';
import { SLOW_PLATFORMS } from './workload';

const GOAL_RATIO = 0.5;
const GOAL_HEALTHY_P99_MS = 3000;

function settingsFromEnv(): Settings {
  const settings: Settings = {
    totalEvents: intFromEnv('BENCH_EVENTS', 10_000),
    slowEvents: intFromEnv('BENCH_SLOW_EVENTS', 20, 0),
    slowMs: intFromEnv('BENCH_SLOW_MS', 2000, 0),
    rate: intFromEnv('BENCH_RATE', 0, 0),
    concurrency: intFromEnv('BENCH_CONCURRENCY', 32),
    timeoutS: intFromEnv('BENCH_TIMEOUT', 150),
    stages: process.env.BENCH_STAGES === '1',
  };
  if (settings.slowEvents * SLOW_PLATFORMS >= settings.totalEvents)
    throw new Error('BENCH_SLOW_EVENTS * 10 must stay below BENCH_EVENTS');
  return settings;
}

async function main(): Promise<number> {
  const settings = settingsFromEnv();
  const runs = intFromEnv('BENCH_RUNS', 3);
  const figures: RunFigures[] = [];
  for (let run = 1; run <= runs; run += 1) {
    console.log(`\n=== run ${run} of ${runs}: the dispatcher's burst, then its plain POSTs ===`);
    figures.push(await oneRun(settings));
  }
  const healthyPerSecond = median(figures.map((f) => f.healthy.perSecond));
  const baselinePerSecond = median(figures.map((f) => f.baseline.perSecond));
  const ratio = median(figures.map((f) => f.ratio));
  const healthyP99 = median(figures.map((f) => f.healthy.p99Ms));
  const cpuPerDelivery = median(figures.map((f) => f.cpu.microsPerHealthyDelivery));
  const cpuPerPost = median(figures.map((f) => f.baseline.cpuMicrosPerPost));
  const ratioPass = ratio >= GOAL_RATIO;
  const p99Pass = healthyP99 <= GOAL_HEALTHY_P99_MS;
  const ok = figures.every((f) => f.ok);
  const list = (values: number[], digits = 0) => values.map((v) => v.toFixed(digits)).join(', ');
  console.log(`\n=== median of ${runs} alternated runs ===`);
  console.log(
    `healthy deliveries/s    ${healthyPerSecond.toFixed(0)} (runs: ${list(figures.map((f) => f.healthy.perSecond))}); ` +
      `plain signed POSTs/s, same runs: ${baselinePerSecond.toFixed(0)} (${list(figures.map((f) => f.baseline.perSecond))})`,
  );
  console.log(
    `CPU per healthy delivery ${cpuPerDelivery.toFixed(0)} µs (runs: ${list(figures.map((f) => f.cpu.microsPerHealthyDelivery))}); ` +
      `per plain POST ${cpuPerPost.toFixed(0)} µs (${list(figures.map((f) => f.baseline.cpuMicrosPerPost))})`,
  );
  console.log(
    `goal "healthy deliveries/s at least ${GOAL_RATIO * 100}% of plain POSTs": ${ratioPass ? 'PASS' : 'MISS'} ` +
      `(${(ratio * 100).toFixed(1)}%; runs: ${list(
        figures.map((f) => f.ratio * 100),
        1,
      )}%)`,
  );
  console.log(
    `goal "healthy p99 at most ${GOAL_HEALTHY_P99_MS} ms":                ${p99Pass ? 'PASS' : 'MISS'} ` +
      `(${healthyP99.toFixed(0)} ms; runs: ${list(figures.map((f) => f.healthy.p99Ms))} ms)`,
  );
  console.log(ok ? 'OK: none lost' : 'FAILED: events were lost or misdelivered');
  // Every figure to a tenth, the ratios to a hundredth of a percent.
  const rounded = (key: string, value: unknown) =>
    typeof value !== 'number'
      ? value
      : key === 'ratio' || key === 'busyShare'
        ? Math.round(value * 10_000) / 10_000
        : Math.round(value * 10) / 10;
  console.log(
    JSON.stringify(
      {
        bench: 'webhooks',
        events: settings.totalEvents,
        concurrency: settings.concurrency,
        runs: figures,
        median: {
          healthyPerSecond,
          baselinePerSecond,
          ratio,
          healthyP99Ms: healthyP99,
          cpuMicrosPerHealthyDelivery: cpuPerDelivery,
          cpuMicrosPerPost: cpuPerPost,
        },
        goals: {
          ratio: { min: GOAL_RATIO, pass: ratioPass },
          healthyP99Ms: { max: GOAL_HEALTHY_P99_MS, pass: p99Pass },
        },
        ok,
      },
      rounded,
    ),
  );
  return ok ? 0 : 1;
}

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error('bench-webhooks failed:', err);
    process.exit(1);
  },
);
