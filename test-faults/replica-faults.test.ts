import path from 'node:path';
import { sleep } from '@svc/test-kit';
import { startClusterBench, type ClusterBench } from './cluster-bench';
import { SERVICES } from './inside-checks';

// Two of everything (issue #34): two processes of every service, the gateway included, behind
// HAProxy (health-checked on /readyz, as a Kubernetes Service in front of a Deployment's pods),
// on the suite's own PostgreSQL and RabbitMQ, under the same workload and checks as the cluster
// file. Partial failures: one replica of each service killed in turn, a rolling restart.

const ROOT = path.resolve(__dirname, '..');
const MINUTES = 60_000;

let suite: ClusterBench;

beforeAll(async () => {
  suite = await startClusterBench(
    ROOT,
    { file: '3-replicas', title: 'Faults with two replicas of every service behind HAProxy:' },
    { replicas: 2 },
  );
}, 6 * MINUTES);

afterAll(async () => {
  await suite?.teardown();
}, 3 * MINUTES);

/** Services in the order the faults take them. */
const ORDER = ['gateway', ...SERVICES.filter((s) => s !== 'gateway')];

describe('two replicas of every service behind a load balancer, with a steady workload', () => {
  it(
    'when nothing fails, then every chain completes once, no request is refused 503 and no webhook is sent again',
    async () => {
      await suite.fault({
        label: 'two replicas, no fault',
        inject: () => sleep(8000),
        probe: () => suite.everythingServes(),
        unavailableIsAProblem: true,
      });
    },
    5 * MINUTES,
  );

  it(
    'when one replica of each service is killed with -9 in turn under writes, then nothing acknowledged is lost or doubled',
    async () => {
      let dispatcherKilledAt = 0;
      await suite.fault({
        label: 'kill -9 one replica of each, in turn',
        warmupMs: 3000,
        dispatcherKilledAt: () => dispatcherKilledAt,
        inject: async () => {
          for (const [i, service] of ORDER.entries()) {
            const replicas = suite.env.cluster.replicasOf[service] ?? [service];
            // The first replica of some services, the second of others.
            const victim = replicas[i % replicas.length] ?? service;
            if (service === 'webhook-dispatcher') dispatcherKilledAt = performance.now();
            process.stdout.write(
              `[faults]   ${victim} killed at ${(performance.now() / 1000).toFixed(1)} s\n`,
            );
            suite.env.kill(victim);
            await sleep(1500);
            await suite.env.restart(victim);
          }
        },
        probe: () => suite.everythingServes(),
      });
    },
    8 * MINUTES,
  );

  it(
    'when every service is restarted replica by replica (SIGTERM, wait until ready, next), then no request fails and nothing is lost or doubled',
    async () => {
      await suite.fault({
        label: 'rolling restart of every service',
        warmupMs: 3000,
        inject: async () => {
          for (const service of ORDER) {
            for (const name of suite.env.cluster.replicasOf[service] ?? [service]) {
              const at = (performance.now() / 1000).toFixed(1);
              await suite.env.stopGracefully(name);
              process.stdout.write(
                `[faults]   ${name} stopped (SIGTERM at ${at} s, exited at ${(performance.now() / 1000).toFixed(1)} s)\n`,
              );
              await suite.env.restart(name);
              // The balancer sees it ready within its check interval (1 s), as a readiness probe would.
              await sleep(1500);
            }
          }
        },
        probe: () => suite.everythingServes(),
        unavailableIsAProblem: true,
      });
    },
    10 * MINUTES,
  );
});
