import { WorkloadClient } from './client';
import { startFaultCluster, type FaultCluster, type FaultClusterOptions } from './fault-cluster';
import { formatTable, saveProblems, saveRows, type FaultRow } from './fault-report';
import { runUnderFault, type Bench, type FaultSpec } from './fault-run';
import { SERVICES } from './inside-checks';
import { startWebhookReceiver, type WebhookReceiver } from './webhook-receiver';
import { Workload } from './workload';

// What the cluster fault files share: the cluster on the suite's own infrastructure, the
// workload and its receiver, the probes that say a route serves again, and the run of one fault.

/** Concurrent chains (each its own owner, avatar platform and licensee). */
const RUNNERS = 3;

export interface ClusterBench {
  env: FaultCluster;
  receiver: WebhookReceiver;
  workload: Workload;
  bench: Bench;
  rows: FaultRow[];
  /** Every process answers /readyz 200. */
  allReady(): Promise<boolean>;
  /** A read through the gateway that needs `service`. */
  routeOf(service: string): () => Promise<boolean>;
  /** Every route answers and every process is ready. */
  everythingServes(): Promise<boolean>;
  /** Runs one fault and expects it survived; its row is saved under `file` with `title`. */
  fault(spec: FaultSpec): Promise<void>;
  teardown(): Promise<void>;
}

/** The URL answers, and not with a 5xx (a 404 of the service itself means it serves). */
async function ok(url: string, token?: string): Promise<boolean> {
  const response = await fetch(url, {
    headers: token === undefined ? {} : { authorization: `Bearer ${token}` },
    signal: AbortSignal.timeout(2000),
  });
  await response.arrayBuffer();
  return response.status < 500;
}

export async function startClusterBench(
  root: string,
  report: { file: string; title: string },
  options: FaultClusterOptions = {},
): Promise<ClusterBench> {
  const receiver = await startWebhookReceiver();
  const env = await startFaultCluster(
    root,
    {
      SVC_ENVIRONMENT: 'sandbox',
      SVC_ALLOW_PRIVATE_FETCH: 'true',
      LOG_LEVEL: process.env.FAULTS_LOG_LEVEL ?? 'warn',
      // Sandbox compresses the webhook retry schedule 60x; 300x keeps the suite within its budget
      // (5 s, 1 s, 6 s, 24 s, 60 s ... between attempts).
      WEBHOOK_RETRY_TIME_DIVISOR: '300',
    },
    options,
  ).catch(async (err: unknown) => {
    await receiver.close();
    throw err;
  });
  const gateway = () => env.cluster.gatewayUrl;
  const workload = new Workload(new WorkloadClient(gateway), receiver.url);
  await workload.setup(env.cluster.adminToken, RUNNERS, receiver.url);
  const bench: Bench = {
    workload,
    checker: new WorkloadClient(gateway, { requestDeadlineMs: 8000 }),
    receiver,
    inside: {
      postgresUrl: env.postgres.url,
      databasePrefix: env.databasePrefix,
      broker: env.broker,
      gatewayUrl: gateway,
    },
    deaths: env.deaths,
    warningsAbout: (requestId) => env.warningsAbout(requestId),
    reviveDead: () => env.reviveDead(),
    reported: new Set(),
    dispatcherKills: [],
  };
  const rows: FaultRow[] = [];

  const allReady = async (): Promise<boolean> => {
    const results = await Promise.all(
      [...env.cluster.processes.values()].map((p) => ok(`${p.url}/readyz`).catch(() => false)),
    );
    return results.every(Boolean);
  };
  const routeOf = (service: string) => async (): Promise<boolean> => {
    const cast = workload.casts[0];
    if (cast === undefined) return false;
    const paths: Record<string, [string, string]> = {
      gateway: [cast.owner.key, '/v1/svc/claims?limit=1'],
      registry: [cast.owner.key, '/v1/svc/claims?limit=1'],
      // An unknown identity: detection's own 404 shows it serves.
      detection: [cast.avatars.key, '/identity/status/claim_faultsprobe0000000000'],
      licensing: [cast.licensee.key, '/v1/svc/licenses?limit=1'],
      enforcement: [cast.avatars.key, '/v1/svc/avatars?limit=1'],
      billing: [cast.licensee.key, '/revenue/balance'],
      'webhook-dispatcher': [cast.avatars.key, '/v1/svc/webhooks'],
    };
    const [token, route] = paths[service] ?? [cast.owner.key, '/v1/svc/claims?limit=1'];
    return ok(env.cluster.gatewayUrl + route, token);
  };
  const everythingServes = async (): Promise<boolean> => {
    if (!(await allReady())) return false;
    const results = await Promise.all(SERVICES.map((s) => routeOf(s)().catch(() => false)));
    return results.every(Boolean);
  };

  return {
    env,
    receiver,
    workload,
    bench,
    rows,
    allReady,
    routeOf,
    everythingServes,
    fault: async (spec) => {
      const { row, problems, summary, notes } = await runUnderFault(bench, spec);
      rows.push(row);
      // Kept after every fault, and told at once (jest holds console output until the file ends).
      saveRows(report.file, report.title, rows);
      process.stdout.write(`\n[faults] ${formatTable([row]).split('\n')[2]}\n`);
      for (const line of summary) process.stdout.write(`[faults]   ${line}\n`);
      for (const line of notes) process.stdout.write(`[faults]   note: ${line}\n`);
      saveProblems(spec.label, problems);
      expect(summary).toEqual([]);
    },
    teardown: async () => {
      workload.client.abandon();
      await workload.stop().catch(() => undefined);
      if (rows.length > 0) console.log(`${report.title}\n\n${formatTable(rows)}\n`);
      await env.teardown();
      await receiver.close();
    },
  };
}
