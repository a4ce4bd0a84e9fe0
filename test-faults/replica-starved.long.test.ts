import path from 'node:path';
import { startClusterBench, type ClusterBench } from './cluster-bench';
import {
  BROKER_CUT,
  brokerAway,
  brokerCut,
  DATABASE_CUT,
  databaseCut,
  killOneReplicaOfEach,
  noFault,
  rollingRestart,
  starved,
} from './replica-rows';

// The long faults of two of everything (issue #34), out of `make test` (about 17 minutes):
// `make test-faults-long`. The broker away for 5 minutes while writes go on, then each fault of
// the quick file again with a CPU hog taking most of the machine (one busy loop per core), as a
// throttled pod or a noisy host sees it. Same cluster, workload and checks as replica-faults.

const ROOT = path.resolve(__dirname, '..');
const MINUTES = 60_000;
/** Busy loops beside the cluster: one per core of this 2-core machine. */
const HOGS = 2;

let suite: ClusterBench;

beforeAll(async () => {
  suite = await startClusterBench(
    ROOT,
    { file: '4-replicas-long', title: 'Long faults with two replicas of every service behind HAProxy:' },
    { replicas: 2, cutOff: [BROKER_CUT, DATABASE_CUT] },
  );
}, 6 * MINUTES);

afterAll(async () => {
  await suite?.teardown();
}, 3 * MINUTES);

/** How long the broker is away: 5 minutes, as issue #34 asks (FAULTS_BROKER_AWAY_MS for a quicker trial). */
const AWAY_MS = Number(process.env.FAULTS_BROKER_AWAY_MS ?? 5 * MINUTES);

describe('two replicas of every service behind a load balancer, long outages and a starved CPU', () => {
  it(
    'when the broker is away for 5 minutes while writes go on, then nothing acknowledged is lost or doubled and the backlog drains',
    () => suite.fault(brokerAway(suite, `broker away ${(AWAY_MS / MINUTES).toFixed(1)} min`, AWAY_MS)),
    15 * MINUTES,
  );

  it(
    'when nothing fails but the CPU is starved, then no request is refused without Retry-After and nothing is lost or doubled',
    // Issue #34's seam (no 503 with no fault) is the quick file's; starved, a 503 that says when to
    // come back is what an overloaded replica may answer.
    () =>
      starved(
        suite,
        { ...noFault(suite, 'no fault, CPU starved'), unavailable: 'without-retry-after' },
        HOGS,
      ),
    8 * MINUTES,
  );

  it(
    'when one replica of each service is killed with -9 in turn with the CPU starved, then nothing acknowledged is lost or doubled',
    () => starved(suite, killOneReplicaOfEach(suite, 'kill -9 one replica of each, CPU starved'), HOGS),
    12 * MINUTES,
  );

  it(
    'when every service is restarted replica by replica with the CPU starved, then nothing is lost or doubled',
    () => starved(suite, rollingRestart(suite, 'rolling restart, CPU starved'), HOGS),
    15 * MINUTES,
  );

  it(
    `when ${BROKER_CUT} loses the broker for 60 s with the CPU starved, then nothing is lost or doubled`,
    () =>
      starved(
        suite,
        {
          ...brokerCut(suite, `${BROKER_CUT} cut off from the broker 60 s, CPU starved`),
          unavailable: 'without-retry-after',
        },
        HOGS,
      ),
    12 * MINUTES,
  );

  it(
    `when ${DATABASE_CUT} loses its database for 60 s with the CPU starved, then nothing is lost or doubled`,
    () =>
      starved(suite, databaseCut(suite, `${DATABASE_CUT} cut off from its database 60 s, CPU starved`), HOGS),
    12 * MINUTES,
  );
});
