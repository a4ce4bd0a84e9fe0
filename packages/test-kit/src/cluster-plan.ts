import type { BalancedService, ClusterBalancer, ClusterOptions } from './cluster-options';
import { childCoverageEnv, GATEWAY_METRICS_PORT, SERVICE_PORTS } from './cluster-options';
import { freePort, freePorts } from './local-ports';

// Which processes a cluster runs, on which ports and with which environment, decided before any starts.

/** How one process is started: its environment, its port and, for a replica, the service it runs. */
export interface ProcessSetting {
  env: NodeJS.ProcessEnv;
  port: number;
  service?: string;
}

/** Every process's setting, and where the balancer (if any) and the gateway listen. */
export interface ClusterPlan {
  settings: Map<string, ProcessSetting>;
  replicasOf: Record<string, string[]>;
  balancer: ClusterBalancer | undefined;
  balanced: BalancedService[];
  gatewayPort: number;
  gatewayMetricsPort: number;
  gatewayBackends: number[];
  replicaNames: string[];
  replicaPorts: number[];
}

/** The settings of the domain services' processes (`services`) and of the gateway's. */
export async function planCluster(
  options: ClusterOptions,
  services: string[],
  secrets: { internalJwtSecret: string; adminToken: string; bootstrapKey: string },
): Promise<ClusterPlan> {
  const { internalJwtSecret, adminToken, bootstrapKey } = secrets;
  const prefix = options.databasePrefix ?? '';
  // A process's service: its own name, except for extra gateway replicas (gateway-2 runs the gateway).
  const settings = new Map<string, ProcessSetting>();

  const common: NodeJS.ProcessEnv = {
    PATH: process.env.PATH,
    NODE_ENV: 'production',
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'warn',
    INTERNAL_JWT_SECRET: internalJwtSecret,
    AMQP_URL: options.amqpUrl,
    HOST: '127.0.0.1',
    ...childCoverageEnv(),
    ...options.env,
  };

  const replicas = Math.max(1, options.replicas ?? 1);
  const balancer = replicas > 1 ? options.balancer : undefined;
  if (replicas > 1 && balancer === undefined)
    throw new Error('replicas > 1 need a balancer in front of them');
  const replicasOf: Record<string, string[]> = {};
  const replicaName = (service: string, replica: number): string =>
    replica === 1 ? service : `${service}-${replica}`;
  const balanced: BalancedService[] = [];

  const serviceUrls: Record<string, string> = {};
  const ports = new Map<string, number>();
  for (const name of services) {
    const port =
      options.ports?.[name] ??
      (options.fixedPorts === true ? (SERVICE_PORTS[name] ?? (await freePort())) : await freePort());
    ports.set(name, port);
    serviceUrls[`${name.replace(/-/g, '_').toUpperCase()}_URL`] = `http://127.0.0.1:${port}`;
  }
  // Every process knows every service's URL (the balancer's, when there is one): enforcement asks
  // detection over HTTP.
  for (const [name, port] of ports) {
    const backendPorts = balancer === undefined ? [port] : await freePorts(replicas, options.replicaPort);
    if (balancer !== undefined) balanced.push({ service: name, frontPort: port, backendPorts });
    replicasOf[name] = [];
    for (const [index, backendPort] of backendPorts.entries()) {
      const processName = replicaName(name, index + 1);
      replicasOf[name].push(processName);
      settings.set(processName, {
        port: backendPort,
        ...(index === 0 ? {} : { service: name }),
        env: {
          ...common,
          ...serviceUrls,
          PORT: String(backendPort),
          DATABASE_URL: databaseUrl(options.postgresUrl, `${prefix}${name.replace(/-/g, '_')}`),
        },
      });
    }
  }
  const gatewayPort =
    options.ports?.gateway ??
    (options.fixedPorts === true ? Number(process.env.PORT ?? SERVICE_PORTS.gateway) : await freePort());
  const gatewayMetricsPort = options.fixedPorts === true ? GATEWAY_METRICS_PORT : await freePort();
  // Credentials and status lists name the gateway's address, where third parties reach them (docs/spec/contracts.md §16).
  for (const name of replicasOf.licensing ?? []) {
    const licensing = settings.get(name);
    if (licensing !== undefined && options.env?.CREDENTIAL_ISSUER === undefined) {
      licensing.env.CREDENTIAL_ISSUER = `http://127.0.0.1:${gatewayPort}`;
    }
  }
  const gatewayReplicas = balancer === undefined ? (options.gatewayReplicas ?? 1) : replicas;
  const gatewayBackends =
    balancer === undefined ? [gatewayPort] : await freePorts(gatewayReplicas, options.replicaPort);
  settings.set('gateway', {
    port: gatewayBackends[0] ?? gatewayPort,
    env: {
      ...common,
      ...serviceUrls,
      PORT: String(gatewayBackends[0] ?? gatewayPort),
      METRICS_PORT: String(gatewayMetricsPort),
      DATABASE_URL: databaseUrl(options.postgresUrl, `${prefix}gateway`),
      ADMIN_TOKEN: adminToken,
      SVC_BOOTSTRAP_KEY: bootstrapKey,
    },
  });
  const replicaNames: string[] = [];
  const replicaPorts: number[] = [];
  const gatewayEnv = settings.get('gateway')?.env ?? {};
  for (let replica = 2; replica <= gatewayReplicas; replica += 1) {
    const name = `gateway-${replica}`;
    const port = gatewayBackends[replica - 1] ?? (await freePort());
    settings.set(name, {
      port,
      service: 'gateway',
      env: { ...gatewayEnv, PORT: String(port), METRICS_PORT: String(await freePort()) },
    });
    replicaNames.push(name);
    replicaPorts.push(port);
  }
  replicasOf.gateway = ['gateway', ...replicaNames];
  if (options.envOf !== undefined)
    for (const [name, setting] of settings) setting.env = options.envOf(name, setting.env);
  if (balancer !== undefined)
    balanced.push({ service: 'gateway', frontPort: gatewayPort, backendPorts: gatewayBackends });
  return {
    settings,
    replicasOf,
    balancer,
    balanced,
    gatewayPort,
    gatewayMetricsPort,
    gatewayBackends,
    replicaNames,
    replicaPorts,
  };
}

function databaseUrl(base: string, name: string): string {
  const url = new URL(base);
  url.pathname = `/${name}`;
  return url.toString();
}
