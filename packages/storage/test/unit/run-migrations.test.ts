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
const ADD_INDEX: Migration = {
  version: 3,
  name: 'claim_name_index',
  sql: 'CREATE INDEX claims_name ON claims (name);',
};

let db: Database;

async function tables(): Promise<string[]> {
  const { rows } = await db.query<{ name: string }>(
    "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1",
  );
  return rows.map((r) => r.name);
}

async function recorded(): Promise<{ namespace: string; version: number; name: string }[]> {
  const { rows } = await db.query<{ namespace: string; version: number; name: string }>(
    'SELECT namespace, version, name FROM schema_migrations ORDER BY namespace, version',
  );
  return rows;
}

beforeAll(async () => {
  db = await createDatabase({ url: 'pglite://memory' });
});

beforeEach(async () => {
  // One engine for the file (opening PGlite takes seconds); a clean schema for each test.
  await db.exec('DROP SCHEMA public CASCADE; CREATE SCHEMA public;');
});

afterAll(async () => {
  await db.close();
});

describe('runMigrations on PGlite', () => {
  it('when migrations are given out of order, then they are applied in version order and listed as applied', async () => {
    const applied = await runMigrations(db, [
      { namespace: 'registry', migrations: [ADD_INDEX, CREATE_CLAIMS, ADD_NAME] },
    ]);

    expect(applied).toEqual(['registry/1_claims', 'registry/2_claim_name', 'registry/3_claim_name_index']);
    expect(await tables()).toEqual(['claims', 'schema_migrations']);
  });

  it('when applied, then each migration is recorded with its namespace, version, name, checksum and time', async () => {
    await runMigrations(db, [{ namespace: 'registry', migrations: [CREATE_CLAIMS, ADD_NAME] }]);
    const { rows } = await db.query<{ checksum: string; just_now: boolean }>(
      "SELECT checksum, applied_at > now() - interval '1 minute' AS just_now FROM schema_migrations ORDER BY version",
    );

    expect(await recorded()).toEqual([
      { namespace: 'registry', version: 1, name: 'claims' },
      { namespace: 'registry', version: 2, name: 'claim_name' },
    ]);
    expect(rows[0]?.checksum).toMatch(/^[0-9a-f]{16}$/);
    expect(rows[0]?.checksum).not.toBe(rows[1]?.checksum);
    expect(rows.map((r) => r.just_now)).toEqual([true, true]);
  });

  it('when run a second time with the same migrations, then nothing is applied again and nothing fails', async () => {
    const source: MigrationSource = { namespace: 'registry', migrations: [CREATE_CLAIMS, ADD_NAME] };
    await runMigrations(db, [source]);

    await expect(runMigrations(db, [source])).resolves.toEqual([]);
    expect(await recorded()).toHaveLength(2);
  });

  it('when a later run brings a new migration, then only that one is applied', async () => {
    await runMigrations(db, [{ namespace: 'registry', migrations: [CREATE_CLAIMS] }]);

    const applied = await runMigrations(db, [
      { namespace: 'registry', migrations: [CREATE_CLAIMS, ADD_NAME] },
    ]);

    expect(applied).toEqual(['registry/2_claim_name']);
    expect((await db.query("INSERT INTO claims (id, name) VALUES ('c1', 'Ada')")).rowCount).toBe(1);
  });

  it('when an applied migration has changed, then the run is refused naming it, and nothing of the run is kept', async () => {
    await runMigrations(db, [{ namespace: 'registry', migrations: [CREATE_CLAIMS] }]);
    const edited = { ...CREATE_CLAIMS, sql: 'CREATE TABLE claims (id text PRIMARY KEY, extra int);' };

    await expect(
      runMigrations(db, [
        {
          namespace: 'billing',
          migrations: [{ version: 1, name: 'ledger', sql: 'CREATE TABLE ledger (id text);' }],
        },
        { namespace: 'registry', migrations: [edited, ADD_NAME] },
      ]),
    ).rejects.toThrow('Migration registry/1_claims changed after it was applied');

    expect(await tables()).toEqual(['claims', 'schema_migrations']);
    expect(await recorded()).toEqual([{ namespace: 'registry', version: 1, name: 'claims' }]);
  });

  it('when a migration fails, then the migrations before it in the same run are rolled back too', async () => {
    const broken: Migration = { version: 2, name: 'broken', sql: 'ALTER TABLE nowhere ADD COLUMN x int;' };

    await expect(
      runMigrations(db, [{ namespace: 'registry', migrations: [CREATE_CLAIMS, broken] }]),
    ).rejects.toThrow(/relation "nowhere" does not exist/);

    expect(await tables()).toEqual([]);
  });

  it('when two namespaces use the same versions, then each is applied and recorded apart', async () => {
    const ledger: Migration = { version: 1, name: 'ledger', sql: 'CREATE TABLE ledger (id text);' };

    const applied = await runMigrations(db, [
      { namespace: 'registry', migrations: [CREATE_CLAIMS] },
      { namespace: 'billing', migrations: [ledger] },
    ]);

    expect(applied).toEqual(['registry/1_claims', 'billing/1_ledger']);
    expect(await recorded()).toEqual([
      { namespace: 'billing', version: 1, name: 'ledger' },
      { namespace: 'registry', version: 1, name: 'claims' },
    ]);
  });

  it("when one namespace runs alone later, then the other's record is neither applied again nor checked against it", async () => {
    await runMigrations(db, [{ namespace: 'registry', migrations: [CREATE_CLAIMS] }]);
    const otherVersionOne: Migration = { version: 1, name: 'ledger', sql: 'CREATE TABLE ledger (id text);' };

    await expect(
      runMigrations(db, [{ namespace: 'billing', migrations: [otherVersionOne] }]),
    ).resolves.toEqual(['billing/1_ledger']);
    await expect(
      runMigrations(db, [{ namespace: 'registry', migrations: [CREATE_CLAIMS] }]),
    ).resolves.toEqual([]);
  });
});
