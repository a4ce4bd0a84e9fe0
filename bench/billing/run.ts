/**
 * Billing benchmark (make bench-billing): usage reports through the gateway into billing, in
 * cluster mode (each its own process, PostgreSQL, RabbitMQ), at the highest rate the plan allows:
 * BENCH_KEYS keys (default 20) × 100 reports each (the usage-report bucket is 100 per minute per
 * key), every report for a different license or period, so none is a correction.
 *
 * Prints throughput and latency (p50, p99, max), then proves nothing was lost or doubled: billing's
 * count of reports and ledger entries equals the accepted answers, the ledger's sum equals the sum
 * of the accepted royalties, and the platforms' /revenue/balance adds up to the same figure.
 *
 * The licenses are seeded straight into billing's license projection (the table its
 * licensing.license.* consumer fills): the consumer path is covered by the tests and the e2e test,
 * and seeding keeps this benchmark about reports alone. Bounded: 3 minutes at most (about 70 s on a loaded 2-core machine).
 *
 * Then the same-run baseline: as many GET /revenue/balance through the gateway with the same keys
 * and concurrency (a read route: key authentication, rate counting and forwarding as for a report,
 * one cheap query in billing). Goal (issue #18): reports/s at least 50 % of that; PASS/MISS and a
 * last JSON line.
 *
 * Environment: BENCH_KEYS (default 20), BENCH_CONCURRENCY (in-flight requests, default 32),
 * TEST_DATABASE_URL / TEST_AMQP_URL (the local infrastructure, else testcontainers).
 *
 * Exit code 0 when every report was accepted and every check holds, 1 otherwise.
 */
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { createDatabase } from '@svc/storage';
import {
  infrastructure,
  isolatedAmqpUrl,
  startCluster,
  uniqueSuffix,
  type RunningCluster,
} from '@svc/test-kit';

const REPORTS_PER_KEY = 100;
const GOAL_RATIO = 0.5;
const LICENSES_PER_KEY = 10;
const PERIODS_PER_LICENSE = REPORTS_PER_KEY / LICENSES_PER_KEY;

function intFromEnv(name: string, fallback: number): number {
  const raw = process.env[name];
  if (raw === undefined || raw.trim() === '') return fallback;
  const value = Number(raw);
  if (!Number.isInteger(value) || value < 1)
    throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return value;
}

interface Job {
  key: string;
  licenseId: string;
  period: string;
  revenue: Record<string, number>;
}

interface Outcome {
  status: number;
  ms: number;
  royaltyDueCents: number;
}

function databaseUrl(base: string, name: string): string {
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}

function periodsBack(count: number, from: Date): string[] {
  return Array.from({ length: count }, (_, i) => {
    const d = new Date(Date.UTC(from.getUTCFullYear(), from.getUTCMonth() - i, 1));
    return `${d.getUTCFullYear()}-${String(d.getUTCMonth() + 1).padStart(2, '0')}`;
  });
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}

async function post(
  base: string,
  key: string,
  url: string,
  body: unknown,
): Promise<{ status: number; body: any }> {
  const response = await fetch(base + url, {
    method: 'POST',
    headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, body: await response.json() };
}

async function main(): Promise<number> {
  const keys = intFromEnv('BENCH_KEYS', 20);
  const concurrency = intFromEnv('BENCH_CONCURRENCY', 32);
  const started = performance.now();
  const infra = await infrastructure();
  const prefix = `bench_${uniqueSuffix()}_`;
  // A vhost of its own: the services declare every consumer's queue, and the events of the
  // consumers this bench does not run would otherwise stay in the machine's default vhost.
  const broker = await isolatedAmqpUrl('bench_billing');
  // bench/dist/billing -> the repository root.
  const root = path.resolve(__dirname, '..', '..', '..');
  let cluster: RunningCluster | undefined;
  const billingDb = await createDatabase({ url: databaseUrl(infra.postgresUrl, `${prefix}billing`) });
  try {
    cluster = await startCluster({
      rootDir: root,
      postgresUrl: infra.postgresUrl,
      amqpUrl: broker.url,
      databasePrefix: prefix,
      services: ['billing'],
      output: process.env.BENCH_OUTPUT === 'prefixed' ? 'prefixed' : 'silent',
    });
    const gw = cluster.gatewayUrl;
    const admin = cluster.adminToken;

    // Platforms and keys through the operator API; licenses seeded into billing's projection.
    const now = new Date();
    const periods = periodsBack(PERIODS_PER_LICENSE, now);
    const validFrom = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - PERIODS_PER_LICENSE, 1));
    const owner = `plat_benchowner${uniqueSuffix()}`;
    const jobs: Job[] = [];
    const platforms: string[] = [];
    for (let k = 0; k < keys; k++) {
      const platform = await post(gw, admin, '/admin/platforms', { name: `Bench ${k}`, plan: 'standard' });
      const platformId = platform.body.data.id as string;
      platforms.push(platformId);
      const key = (await post(gw, admin, `/admin/platforms/${platformId}/keys`, {})).body.data.key as string;
      for (let l = 0; l < LICENSES_PER_KEY; l++) {
        const licenseId = `lic_bench${k}x${l}${uniqueSuffix()}`;
        await billingDb.query(
          `INSERT INTO licenses (id, box_id, licensee_platform_id, licensee_platform_name, box_owner_platform_id,
             royalty_rate, currency, status, valid_from, expires_at, ended_at, last_event_at)
           VALUES ($1, 'box_bench', $2, $3, $4, $5, 'USD', 'active', $6, $7, NULL, $6)`,
          [
            licenseId,
            platformId,
            `Bench ${k}`,
            owner,
            ['0.15', '0.125', '0.2', '0.1'][l % 4],
            validFrom.toISOString(),
            new Date(now.getTime() + 365 * 86_400_000).toISOString(),
          ],
        );
        for (const [p, period] of periods.entries()) {
          const n = k * 1000 + l * 10 + p;
          jobs.push({
            key,
            licenseId,
            period,
            revenue: { subscriptions: 100 + (n % 97) + 0.33, messages: (n % 13) + 0.1, tips: 0.2 },
          });
        }
      }
    }

    // Interleave keys so every key's bucket fills at the same pace.
    const order = jobs
      .map((job, i) => ({ job, rank: (i % REPORTS_PER_KEY) * keys + Math.floor(i / REPORTS_PER_KEY) }))
      .sort((a, b) => a.rank - b.rank)
      .map((entry) => entry.job);
    const outcomes: Outcome[] = [];
    let next = 0;
    const loadStart = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        for (;;) {
          const job = order[next++];
          if (job === undefined) return;
          const t0 = performance.now();
          const reply = await post(gw, job.key, `/v1/svc/licenses/${job.licenseId}/usage`, {
            period: job.period,
            metrics: { subscribers: 10, messages: 100 },
            revenue: job.revenue,
          });
          outcomes.push({
            status: reply.status,
            ms: performance.now() - t0,
            royaltyDueCents: reply.status === 201 ? Math.round(reply.body.data.royaltyDue * 100) : 0,
          });
        }
      }),
    );
    const loadSeconds = (performance.now() - loadStart) / 1000;

    const accepted = outcomes.filter((o) => o.status === 201);
    const byStatus = new Map<number, number>();
    for (const o of outcomes) byStatus.set(o.status, (byStatus.get(o.status) ?? 0) + 1);
    const latencies = outcomes.map((o) => o.ms).sort((a, b) => a - b);
    const acceptedCents = accepted.reduce((sum, o) => sum + o.royaltyDueCents, 0);

    const { rows } = await billingDb.query<{
      reports: string;
      entries: string;
      sum: string;
      versions: string;
    }>(
      `SELECT (SELECT COUNT(*) FROM usage_reports)::text AS reports,
              (SELECT COUNT(*) FROM usage_reports WHERE version > 1)::text AS versions,
              (SELECT COUNT(*) FROM ledger_entries)::text AS entries,
              (SELECT COALESCE(SUM(amount_cents), 0) FROM ledger_entries)::text AS sum`,
    );
    const stored = rows[0];
    let balanceCents = 0;
    for (let k = 0; k < keys; k++) {
      const key = order.find((job) => job.licenseId.startsWith(`lic_bench${k}x`))?.key ?? '';
      const response = await fetch(`${gw}/revenue/balance`, { headers: { authorization: `Bearer ${key}` } });
      const body = (await response.json()) as { balance: number };
      balanceCents += Math.round(body.balance * 100);
    }

    const checks: [string, boolean][] = [
      [`every report accepted (${accepted.length}/${jobs.length})`, accepted.length === jobs.length],
      [`reports stored = accepted (${stored?.reports})`, Number(stored?.reports) === accepted.length],
      [
        `no report became a correction (${stored?.versions} with version > 1)`,
        Number(stored?.versions) === 0,
      ],
      [`ledger entries = accepted (${stored?.entries})`, Number(stored?.entries) === accepted.length],
      [
        `ledger sum = accepted royalties (${stored?.sum} = ${acceptedCents} cents)`,
        Number(stored?.sum) === acceptedCents,
      ],
      [`sum of balances = accepted royalties (${balanceCents} cents)`, balanceCents === acceptedCents],
    ];

    console.log(`billing usage reports through the gateway (cluster mode)`);
    console.log(`  keys ${keys} × ${REPORTS_PER_KEY} reports, concurrency ${concurrency}`);
    console.log(`  statuses ${JSON.stringify(Object.fromEntries(byStatus))}`);
    console.log(
      `  throughput ${(outcomes.length / loadSeconds).toFixed(1)} reports/s over ${loadSeconds.toFixed(2)} s`,
    );
    console.log(
      `  latency ms p50 ${percentile(latencies, 50).toFixed(1)}  p99 ${percentile(latencies, 99).toFixed(1)}  max ${percentile(latencies, 100).toFixed(1)}`,
    );
    for (const [what, ok] of checks) console.log(`  ${ok ? 'ok  ' : 'FAIL'} ${what}`);

    // The baseline: the gateway's throughput on a read route, same keys, same concurrency.
    const keysInOrder = [...new Set(order.map((job) => job.key))];
    const reads = order.map((_, i) => keysInOrder[i % keysInOrder.length] as string);
    let nextRead = 0;
    const readStatuses = new Map<number, number>();
    const readStart = performance.now();
    await Promise.all(
      Array.from({ length: concurrency }, async () => {
        for (;;) {
          const key = reads[nextRead++];
          if (key === undefined) return;
          const response = await fetch(`${gw}/revenue/balance`, {
            headers: { authorization: `Bearer ${key}` },
          });
          await response.arrayBuffer();
          readStatuses.set(response.status, (readStatuses.get(response.status) ?? 0) + 1);
        }
      }),
    );
    const readSeconds = (performance.now() - readStart) / 1000;
    const reportsPerSecond = outcomes.length / loadSeconds;
    const readsPerSecond = reads.length / readSeconds;
    const ratio = reportsPerSecond / readsPerSecond;
    const readsOk = readStatuses.get(200) === reads.length;
    console.log(
      `  baseline ${readsPerSecond.toFixed(1)} GET /revenue/balance/s through the gateway over ${readSeconds.toFixed(2)} s (${reads.length} requests, statuses ${JSON.stringify(Object.fromEntries(readStatuses))})`,
    );
    console.log(
      `  goal "usage reports/s at least ${GOAL_RATIO * 100}% of the gateway's read route": ${ratio >= GOAL_RATIO ? 'PASS' : 'MISS'} (${(ratio * 100).toFixed(1)}%)`,
    );
    checks.push([`every baseline read answered 200`, readsOk]);
    console.log(
      JSON.stringify({
        bench: 'billing',
        keys,
        concurrency,
        reports: outcomes.length,
        reportsPerSecond: Math.round(reportsPerSecond * 10) / 10,
        p50Ms: Math.round(percentile(latencies, 50) * 10) / 10,
        p99Ms: Math.round(percentile(latencies, 99) * 10) / 10,
        baseline: {
          route: 'GET /revenue/balance',
          requests: reads.length,
          perSecond: Math.round(readsPerSecond * 10) / 10,
        },
        ratio: Math.round(ratio * 10_000) / 10_000,
        goals: { ratio: { min: GOAL_RATIO, pass: ratio >= GOAL_RATIO } },
        checks: Object.fromEntries(checks.map(([what, ok]) => [what, ok])),
      }),
    );
    console.log(`  total run ${((performance.now() - started) / 1000).toFixed(1)} s`);
    return checks.every(([, ok]) => ok) ? 0 : 1;
  } finally {
    await cluster?.stop();
    await broker.drop();
    await billingDb.close();
    const dropper = await createDatabase({ url: infra.postgresUrl });
    const { rows } = await dropper.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE datname LIKE $1',
      [`${prefix}%`],
    );
    for (const row of rows) await dropper.query(`DROP DATABASE IF EXISTS "${row.datname}" WITH (FORCE)`);
    await dropper.close();
  }
}

const deadline = setTimeout(() => {
  console.error('bench-billing: over 3 minutes, giving up');
  process.exit(1);
}, 180_000);
deadline.unref();

main().then(
  (code) => process.exit(code),
  (err: unknown) => {
    console.error(err);
    process.exit(1);
  },
);
