import path from 'node:path';
import { startClusterBench, type ClusterBench } from './cluster-bench';
import {
  BROKER_CUT,
  brokerCut,
  DATABASE_CUT,
  databaseCut,
  killOneReplicaOfEach,
  noFault,
  rollingRestart,
} from './replica-rows';

// Two of everything (issue #34): two processes of every service, the gateway included, behind
// HAProxy (health-checked on /readyz, as a Kubernetes Service in front of a Deployment's pods),
// on the suite's own PostgreSQL and RabbitMQ, under the same workload and checks as the cluster
// file. Partial failures: one replica of each service killed in turn, a rolling restart, one
// replica cut off from the broker, one cut off from its database (its connections hang: a
// partition, where nothing is closed).

const ROOT = path.resolve(__dirname, '..');
const MINUTES = 60_000;
let suite: ClusterBench;

beforeAll(async () => {
  suite = await startClusterBench(
    ROOT,
    { file: '3-replicas', title: 'Faults with two replicas of every service behind HAProxy:' },
    { replicas: 2, cutOff: [BROKER_CUT, DATABASE_CUT] },
  );
}, 6 * MINUTES);

afterAll(async () => {
  await suite?.teardown();
}, 3 * MINUTES);

describe('two replicas of every service behind a load balancer, with a steady workload', () => {
  it(
    'when nothing fails, then every chain completes once, no request is refused 503 and no webhook is sent again',
    () => suite.fault(noFault(suite, 'two replicas, no fault')),
    5 * MINUTES,
  );

  it(
    'when one replica of each service is killed with -9 in turn under writes, then nothing acknowledged is lost or doubled',
    () => suite.fault(killOneReplicaOfEach(suite, 'kill -9 one replica of each, in turn')),
    8 * MINUTES,
  );

  it(
    'when every service is restarted replica by replica (SIGTERM, wait until ready, next), then no request fails for good, none is refused without Retry-After, and nothing is lost or doubled',
    () => suite.fault(rollingRestart(suite, 'rolling restart of every service')),
    10 * MINUTES,
  );

  it(
    `when ${BROKER_CUT} loses the broker for 60 s (its connections hang) while it keeps its database, then no request is refused, no event waits for it and nothing is lost or doubled`,
    () => suite.fault(brokerCut(suite, `${BROKER_CUT} cut off from the broker 60 s`)),
    8 * MINUTES,
  );

  it(
    `when ${DATABASE_CUT} loses its database for 60 s (its connections hang) while it keeps the broker, then it leaves the balancer, its row locks are released to the other replica, and nothing is lost or doubled`,
    () => suite.fault(databaseCut(suite, `${DATABASE_CUT} cut off from its database 60 s`)),
    8 * MINUTES,
  );
});
