import pg from 'pg';
import { infrastructure, isolatedAmqpUrl, uniqueSuffix } from './infrastructure';
import { startCluster, type ClusterOptions, type RunningCluster } from './cluster';

export interface TestCluster extends RunningCluster {
  postgresUrl: string;
  /** The cluster's broker URL: a vhost of its own where one can be made (isolatedAmqpUrl). */
  amqpUrl: string;
  /** The prefix of this cluster's database names. */
  databasePrefix: string;
  /** Stops every process and drops every database and the vhost the cluster created. */
  teardown(): Promise<void>;
}

/** Drops every database whose name starts with `prefix`. */
export async function dropDatabasesWithPrefix(postgresUrl: string, prefix: string): Promise<void> {
  const client = new pg.Client({ connectionString: postgresUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ datname: string }>(
      'SELECT datname FROM pg_database WHERE datname LIKE $1',
      [`${prefix}%`],
    );
    for (const row of rows) await client.query(`DROP DATABASE IF EXISTS "${row.datname}" WITH (FORCE)`);
  } finally {
    await client.end();
  }
}

/**
 * The cluster mode for an end-to-end test: processes on this test run's own databases (a random
 * prefix), from testcontainers or the machine's services; teardown() removes all of it.
 */
export async function startTestCluster(
  options: Omit<ClusterOptions, 'postgresUrl' | 'amqpUrl' | 'databasePrefix'>,
): Promise<TestCluster> {
  const infra = await infrastructure();
  const prefix = `e2e_${uniqueSuffix()}_`;
  const broker = await isolatedAmqpUrl('e2e');
  try {
    const cluster = await startCluster({
      output: 'silent',
      ...options,
      postgresUrl: infra.postgresUrl,
      amqpUrl: broker.url,
      databasePrefix: prefix,
    });
    return {
      ...cluster,
      postgresUrl: infra.postgresUrl,
      amqpUrl: broker.url,
      databasePrefix: prefix,
      teardown: async () => {
        await cluster.stop();
        await dropDatabasesWithPrefix(infra.postgresUrl, prefix);
        await broker.drop();
      },
    };
  } catch (err) {
    await dropDatabasesWithPrefix(infra.postgresUrl, prefix).catch(() => undefined);
    await broker.drop().catch(() => undefined);
    throw err;
  }
}
