// `make up`: one process per service against PostgreSQL (one database per service, created on
// start) and RabbitMQ, on the ports of SERVICE_PORTS. A process that crashes is restarted with
// backoff (0.5 s doubling to 30 s) and the restart is logged as a [supervisor] line. Ctrl-C stops them all.
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const { startCluster } = require(path.join(root, 'packages/test-kit/dist/cluster.js'));

const postgresUrl = process.env.DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres';
const amqpUrl = process.env.AMQP_URL ?? 'amqp://guest:guest@127.0.0.1:5672';

const cluster = await startCluster({
  rootDir: root,
  postgresUrl,
  amqpUrl,
  fixedPorts: true,
  output: 'prefixed',
  adminToken: process.env.ADMIN_TOKEN,
  bootstrapKey: process.env.SVC_BOOTSTRAP_KEY,
  env: {
    LOG_LEVEL: process.env.LOG_LEVEL ?? 'info',
    SVC_ENVIRONMENT: process.env.SVC_ENVIRONMENT ?? 'sandbox',
    SVC_ALLOW_PRIVATE_FETCH: process.env.SVC_ALLOW_PRIVATE_FETCH ?? 'true',
    ...(process.env.INTERNAL_JWT_SECRET ? { INTERNAL_JWT_SECRET: process.env.INTERNAL_JWT_SECRET } : {}),
  },
});

console.log(`
  Cluster mode is ready: ${[...cluster.processes.keys()].join(', ')}
  Gateway:      ${cluster.gatewayUrl}
  Dashboard:    ${cluster.gatewayUrl}/dashboard
  Sandbox key:  ${cluster.bootstrapKey}
  Admin token:  ${cluster.adminToken}
`);

let stopping = false;
for (const signal of ['SIGINT', 'SIGTERM']) {
  process.on(signal, async () => {
    if (stopping) return;
    stopping = true;
    await cluster.stop();
    process.exit(0);
  });
}
