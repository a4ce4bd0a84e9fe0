import type { ChildProcess } from 'node:child_process';
import path from 'node:path';

// What a cluster is started with, the handle it answers with, and its fixed ports.

/**
 * Node's flags for a service process, as deploy/Dockerfile's CMD gives them for Docker, compose and
 * Kubernetes. The young generation starts at the size V8 would grow it to under load
 * (16 MB semi-spaces, V8's own maximum on 64-bit): it otherwise grows in steps as the allocation
 * rate rises, minutes into a run, and a replica's memory then climbs by 10 to 20 MB with nothing
 * kept (issue #34's soak). A fixed size makes a pod's footprint its steady state from the start.
 */
export const SERVICE_NODE_FLAGS: readonly string[] = ['--min-semi-space-size=16'];

/**
 * `make test` measures the code these child processes run too (docs/adr/0040): when
 * SVC_CHILD_V8_COVERAGE names a directory, each child started here writes V8's coverage into it
 * (NODE_V8_COVERAGE) on exit, and scripts/coverage-merge.mjs maps it back to src/. Jest's own
 * processes are left out: their coverage is jest's, of the TypeScript it transforms.
 */
export function childCoverageEnv(): NodeJS.ProcessEnv {
  const dir = process.env.SVC_CHILD_V8_COVERAGE;
  return dir === undefined || dir === '' ? {} : { NODE_V8_COVERAGE: path.resolve(dir) };
}

/** The port each service takes in cluster mode when ports are fixed (`make up`). */
export const SERVICE_PORTS: Record<string, number> = {
  gateway: 8080,
  registry: 8081,
  detection: 8082,
  licensing: 8083,
  enforcement: 8084,
  billing: 8085,
  'webhook-dispatcher': 8086,
};
/** The gateway's metrics port in cluster mode when ports are fixed (its METRICS_PORT default). */
export const GATEWAY_METRICS_PORT = 9464;

export interface ClusterOptions {
  /** The repository root (where services/ is). */
  rootDir: string;
  postgresUrl: string;
  amqpUrl: string;
  /** Domain services to start; default: every built service (services/<name>/dist/main.js). */
  services?: string[];
  /** Prefix of each service's database name (tests use a random one). */
  databasePrefix?: string;
  /** Fixed ports from SERVICE_PORTS (make up) or free ones (tests). */
  fixedPorts?: boolean;
  /** Ports chosen by the caller, by process name (gateway included); the others as above. */
  ports?: Record<string, number>;
  /** Extra environment for every process. */
  env?: Record<string, string>;
  adminToken?: string;
  bootstrapKey?: string;
  /** Where process output goes: prefixed to this process's stdout, or dropped. */
  output?: 'prefixed' | 'silent';
  /**
   * Default true: a process that exits without being asked (a crash, kill -9) is started again
   * after a backoff (0.5 s doubling to 30 s, back to 0.5 s once it has run 30 s), and logged.
   */
  supervise?: boolean;
  /** Called on each supervisor event (also written to stdout when output is prefixed). */
  onSupervisorEvent?: (event: SupervisorEvent) => void;
  /**
   * Gateway replicas on the one gateway database (default 1): the others are processes
   * `gateway-2`, `gateway-3`… on ports of their own, listed in `gatewayUrls`.
   */
  gatewayReplicas?: number;
  /**
   * Processes of every service, the gateway included (default 1): `registry`, `registry-2`… With
   * more than one, a `balancer` stands in front of each service, as a Kubernetes Service does.
   */
  replicas?: number;
  /**
   * A load balancer listening on each service's port (the URL every other process and the
   * caller use) and spreading its requests over the service's replicas, each on a port of its own.
   */
  balancer?: ClusterBalancer;
  /** Picks the replicas' ports (default freePort; the fault suite's stable ports survive restarts). */
  replicaPort?: () => Promise<number>;
  /**
   * The environment of one process, as built (its name, e.g. `licensing-2`): what it returns is
   * what the process gets, e.g. its DATABASE_URL or AMQP_URL through a proxy of the caller's.
   */
  envOf?: (name: string, env: NodeJS.ProcessEnv) => NodeJS.ProcessEnv;
}

/** One service as the balancer sees it. */
export interface BalancedService {
  service: string;
  /** Where the balancer listens for it: its URL for everyone else. */
  frontPort: number;
  /** Its replicas' own ports. */
  backendPorts: number[];
}

/** Started before the processes (it health-checks them), stopped after them. */
export interface ClusterBalancer {
  start(services: BalancedService[]): Promise<void>;
  /** Sends `service`'s traffic to the replica on `backendPort` again, and resolves once it does. */
  waitUntilServing(service: string, backendPort: number, timeoutMs?: number): Promise<void>;
  /** Sends no more requests to the replica on `backendPort` (a terminating pod out of the Service). */
  takeOut(service: string, backendPort: number): Promise<void>;
  /** Whether its health checks have the replica on `backendPort` up (a failing readiness takes it out). */
  isServing(service: string, backendPort: number): Promise<boolean>;
  stop(): Promise<void>;
}

/** What the supervisor did about a process. */
export interface SupervisorEvent {
  name: string;
  kind: 'exited' | 'restarted' | 'restart_failed';
  /** Exit code or signal for `exited`; the delay before the restart. */
  code?: number | null;
  signal?: string | null;
  restartInMs?: number;
  error?: string;
}

export interface RunningProcess {
  name: string;
  url: string;
  port: number;
  child: ChildProcess;
}

export interface RunningCluster {
  /** The gateway's public URL (the balancer's, when there is one). */
  gatewayUrl: string;
  /** Every gateway replica's URL, the first being `gatewayUrl`. */
  gatewayUrls: string[];
  /** The gateway's `/metrics` (its own port: the public one does not serve it). */
  gatewayMetricsUrl: string;
  adminToken: string;
  bootstrapKey: string;
  processes: Map<string, RunningProcess>;
  /** Stops one process on purpose (SIGTERM, then SIGKILL after 10 s); the supervisor leaves it stopped. */
  stopProcess(name: string): Promise<void>;
  /** Starts a stopped process again with the same settings (waits for it when it is already running). */
  startProcess(name: string): Promise<void>;
  /** How many times the supervisor has restarted a process. */
  restarts(name: string): number;
  /** The processes of each service, by service: `{ registry: ['registry', 'registry-2'] }`. */
  replicasOf: Record<string, string[]>;
  /** Resolves once the balancer (if any) sends traffic to the process `name` again. */
  balancerServes(name: string): Promise<void>;
  /** The balancer (if any) sends the process `name` no more requests. */
  balancerTakesOut(name: string): Promise<void>;
  /** Whether the balancer sends the process `name` requests now (true without a balancer). */
  balancerSendsTo(name: string): Promise<boolean>;
  stop(): Promise<void>;
}
