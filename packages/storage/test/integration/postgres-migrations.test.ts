import { freshPostgresDatabase } from '@svc/test-kit';
import {
  createDatabase,
  runMigrations,
  type Database,
  type Migration,
  type MigrationSource,
} from '../../src';

const CREATE_CLAIMS: Migration = {
  version: 1,
  name: 'claims',
  sql: 'CREATE TABLE claims (id text PRIMARY KEY);',
};
const ADD_NAME: Migration = {
  version: 2,
  name: 'claim_name',
  sql: "ALTER TABLE claims ADD COLUMN name text NOT NULL DEFAULT '';",
};
const LEDGER: Migration = { version: 1, name: 'ledger', sql: 'CREATE TABLE ledger (id text PRIMARY KEY);' };

const dropAfter: (() => Promise<void>)[] = [];
let db: Database;

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

async function recorded(on: Database): Promise<string[]> {
  const { rows } = await on.query<{ entry: string }>(
    "SELECT namespace || '/' || version || '_' || name AS entry FROM schema_migrations ORDER BY namespace, version",
  );
  return rows.map((r) => r.entry);
}

beforeEach(async () => {
  ({ db } = await freshDatabase());
});

afterAll(async () => {
  for (const drop of dropAfter) await drop();
});

describe('runMigrations on PostgreSQL', () => {
  it('when run on a fresh database, then migrations are applied in version order and recorded', async () => {
    const applied = await runMigrations(db, [
      { namespace: 'registry', migrations: [ADD_NAME, CREATE_CLAIMS] },
    ]);

    expect(applied).toEqual(['registry/1_claims', 'registry/2_claim_name']);
    expect(await recorded(db)).toEqual(['registry/1_claims', 'registry/2_claim_name']);
    expect((await db.query("INSERT INTO claims (id, name) VALUES ('c1', 'Ada')")).rowCount).toBe(1);
  });

  it('when run again, then nothing is applied twice', async () => {
    const source: MigrationSource = { namespace: 'registry', migrations: [CREATE_CLAIMS, ADD_NAME] };
    await runMigrations(db, [source]);

    await expect(runMigrations(db, [source])).resolves.toEqual([]);
    expect(await recorded(db)).toHaveLength(2);
  });

  it('when an applied migration has changed, then the run is refused and nothing of it is kept', async () => {
    await runMigrations(db, [{ namespace: 'registry', migrations: [CREATE_CLAIMS] }]);
    const edited = { ...CREATE_CLAIMS, sql: `${CREATE_CLAIMS.sql} -- edited` };

    await expect(
      runMigrations(db, [
        { namespace: 'billing', migrations: [LEDGER] },
        { namespace: 'registry', migrations: [edited, ADD_NAME] },
      ]),
    ).rejects.toThrow('Migration registry/1_claims changed after it was applied');

    expect(await recorded(db)).toEqual(['registry/1_claims']);
    await expect(db.query('SELECT 1 FROM ledger')).rejects.toThrow(/relation "ledger" does not exist/);
  });

  it('when two namespaces share version numbers, then both are applied and recorded apart', async () => {
    await expect(
      runMigrations(db, [
        { namespace: 'registry', migrations: [CREATE_CLAIMS] },
        { namespace: 'billing', migrations: [LEDGER] },
      ]),
    ).resolves.toEqual(['registry/1_claims', 'billing/1_ledger']);

    expect(await recorded(db)).toEqual(['billing/1_ledger', 'registry/1_claims']);
  });

  it('when two replicas migrate the same database at once, then each migration is applied exactly once', async () => {
    const { url } = await freshDatabase();
    const replicas = [await createDatabase({ url }), await createDatabase({ url })];
    dropAfter.unshift(async () => {
      for (const replica of replicas) await replica.close();
    });
    // The sleep keeps the first run inside its transaction while the second one starts.
    const slow: Migration = {
      version: 3,
      name: 'slow',
      sql: 'SELECT pg_sleep(0.3); CREATE TABLE audit (id text);',
    };
    const source: MigrationSource = { namespace: 'registry', migrations: [CREATE_CLAIMS, ADD_NAME, slow] };

    const results = await Promise.all(replicas.map((replica) => runMigrations(replica, [source])));

    expect(results.map((applied) => applied.length).sort()).toEqual([0, 3]);
    const [first] = replicas;
    expect(first).toBeDefined();
    if (first !== undefined) {
      expect(await recorded(first)).toEqual([
        'registry/1_claims',
        'registry/2_claim_name',
        'registry/3_slow',
      ]);
    }
  });
});
