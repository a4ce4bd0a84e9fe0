import { freshPostgresDatabase } from '@svc/test-kit';
import {
  createDatabase,
  runMigrations,
  type Database,
  type Migration,
  type MigrationSource,
} from '../../src';
import { migrationContract } from '../database-contract';

const dropAfter: (() => Promise<void>)[] = [];

/** A database of its own for each test: migrations leave tables and records behind. */
async function freshDatabase(): Promise<{ url: string; db: Database }> {
  const fresh = await freshPostgresDatabase('storage_migrations');
  const opened = await createDatabase({ url: fresh.url });
  dropAfter.push(async () => {
    await opened.close();
    await fresh.drop();
  });
  return { url: fresh.url, db: opened };
}

// The shared contract (the same one runs against PGlite in test/unit/run-migrations.test.ts).
migrationContract({
  kind: 'postgres',
  fresh: async () => (await freshDatabase()).db,
  dispose: async () => {
    for (const drop of dropAfter) await drop();
  },
});

describe('runMigrations on PostgreSQL', () => {
  it('when two replicas migrate the same database at once, then each migration is applied exactly once', async () => {
    const { url } = await freshDatabase();
    const replicas = [await createDatabase({ url }), await createDatabase({ url })];
    dropAfter.unshift(async () => {
      for (const replica of replicas) await replica.close();
    });
    const migrations: Migration[] = [
      { version: 1, name: 'claims', sql: 'CREATE TABLE claims (id text PRIMARY KEY);' },
      // The sleep keeps the first run inside its transaction while the second one starts.
      { version: 2, name: 'slow', sql: 'SELECT pg_sleep(0.3); CREATE TABLE audit (id text);' },
    ];
    const source: MigrationSource = { namespace: 'registry', migrations };

    const results = await Promise.all(replicas.map((replica) => runMigrations(replica, [source])));

    expect(results.map((applied) => applied.length).sort()).toEqual([0, 2]);
    const { rows } = await replicas[0]!.query<{ entry: string }>(
      "SELECT namespace || '/' || version || '_' || name AS entry FROM schema_migrations ORDER BY version",
    );
    expect(rows.map((r) => r.entry)).toEqual(['registry/1_claims', 'registry/2_slow']);
  });
});
