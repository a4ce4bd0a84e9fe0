import { createHash } from 'node:crypto';
import { runMigrations, type Database, type Migration, type MigrationSource } from '../src';

/** One engine under the contract: how to open it, and what it calls itself. */
export interface DatabaseFixture {
  kind: Database['kind'];
  /** A database for the whole file (opening PGlite takes seconds). */
  open(): Promise<Database>;
  /** An empty database for one test; closed and removed by `dispose`. */
  fresh(): Promise<Database>;
  dispose(): Promise<void>;
}

/**
 * What every Database must do the same way on PostgreSQL and on PGlite: queries, counts, numbers,
 * scripts, errors and transactions. Each engine's test file runs it, then adds what only it has.
 */
export function databaseContract(
  fixture: Pick<DatabaseFixture, 'kind' | 'open'> & { afterClose?(): Promise<void> },
): () => Database {
  let db: Database;

  beforeAll(async () => {
    db = await fixture.open();
    await db.exec(`
      CREATE TABLE claims (id text PRIMARY KEY, name text NOT NULL, score int8 NOT NULL DEFAULT 0);
      CREATE TABLE audit (id bigserial PRIMARY KEY, what text NOT NULL);
    `);
  });

  beforeEach(async () => {
    await db.exec('TRUNCATE claims, audit RESTART IDENTITY');
  });

  afterAll(async () => {
    await db.close();
    await fixture.afterClose?.();
  });

  describe(`${fixture.kind} database, the contract`, () => {
    it(`when opened, then it is a ${fixture.kind} database that answers ping`, async () => {
      expect(db.kind).toBe(fixture.kind);
      await expect(db.ping()).resolves.toBeUndefined();
    });

    it('when rows are inserted with parameters and read back, then the values and counts are right', async () => {
      const inserted = await db.query('INSERT INTO claims (id, name) VALUES ($1, $2), ($3, $4)', [
        'c1',
        'Ada',
        'c2',
        "O'Brien",
      ]);
      const read = await db.query<{ id: string; name: string }>('SELECT id, name FROM claims ORDER BY id');

      expect(inserted.rowCount).toBe(2);
      expect(read.rowCount).toBe(2);
      expect(read.rows).toEqual([
        { id: 'c1', name: 'Ada' },
        { id: 'c2', name: "O'Brien" },
      ]);
    });

    it('when a SELECT returns rows, then rowCount is the number of rows returned', async () => {
      await db.query("INSERT INTO claims (id, name) VALUES ('a', 'A'), ('b', 'B'), ('c', 'C')");

      expect((await db.query('SELECT * FROM claims')).rowCount).toBe(3);
      expect((await db.query("SELECT * FROM claims WHERE id = 'zzz'")).rowCount).toBe(0);
    });

    it('when an UPDATE or DELETE touches rows, then rowCount is how many it touched', async () => {
      await db.query("INSERT INTO claims (id, name) VALUES ('a', 'A'), ('b', 'B'), ('c', 'C')");

      expect((await db.query("UPDATE claims SET name = 'X' WHERE id <> 'a'")).rowCount).toBe(2);
      expect((await db.query("DELETE FROM claims WHERE id = 'nope'")).rowCount).toBe(0);
      expect((await db.query('DELETE FROM claims')).rowCount).toBe(3);
    });

    it('when counting or reading int8 and bigserial columns, then they come back as numbers', async () => {
      await db.query("INSERT INTO claims (id, name, score) VALUES ('a', 'A', 9007199254740991)");
      await db.query("INSERT INTO audit (what) VALUES ('one'), ('two')");

      const { rows } = await db.query<{ total: unknown; score: unknown }>(
        'SELECT count(*) AS total, max(score) AS score FROM claims',
      );
      const audit = await db.query<{ id: unknown }>('SELECT id FROM audit ORDER BY id');

      expect(rows[0]).toEqual({ total: 1, score: 9007199254740991 });
      expect(typeof rows[0]?.total).toBe('number');
      expect(audit.rows.map((r) => r.id)).toEqual([1, 2]);
    });

    it('when an int8 is beyond 2^53, then it still comes back as a number, so rows stay JSON-serialisable', async () => {
      const { rows } = await db.query<{ big: unknown }>('SELECT 9007199254740993::int8 AS big');

      expect(typeof rows[0]?.big).toBe('number');
      expect(JSON.stringify(rows)).toBe('[{"big":9007199254740992}]');
    });

    it('when a script of several statements is run with exec, then all of them take effect', async () => {
      await db.exec(`
        INSERT INTO claims (id, name) VALUES ('s1', 'one');
        INSERT INTO claims (id, name) VALUES ('s2', 'two');
        UPDATE claims SET score = 5 WHERE id = 's2';
      `);

      expect((await db.query('SELECT id, score FROM claims ORDER BY id')).rows).toEqual([
        { id: 's1', score: 0 },
        { id: 's2', score: 5 },
      ]);
    });

    it('when a query is invalid, then it rejects with the database message', async () => {
      await expect(db.query('SELECT * FROM no_such_table')).rejects.toThrow(
        'relation "no_such_table" does not exist',
      );
      await expect(db.query("INSERT INTO claims (id) VALUES ('x')")).rejects.toThrow(
        /null value in column "name"/,
      );
    });
  });

  describe(`${fixture.kind} transactions, the contract`, () => {
    it('when the function resolves, then its writes are committed and its value returned', async () => {
      const result = await db.transaction(async (tx) => {
        await tx.query("INSERT INTO claims (id, name) VALUES ('t1', 'kept')");
        await tx.exec("INSERT INTO audit (what) VALUES ('claim t1 created')");
        return (await tx.query<{ n: number }>('SELECT count(*) AS n FROM claims')).rows[0]?.n;
      });

      expect(result).toBe(1);
      expect((await db.query('SELECT id FROM claims')).rows).toEqual([{ id: 't1' }]);
      expect((await db.query('SELECT what FROM audit')).rows).toEqual([{ what: 'claim t1 created' }]);
    });

    it('when the function throws, then none of its writes remain, the error comes out unchanged and the database is reusable', async () => {
      const failure = new Error('publishing failed');

      await expect(
        db.transaction(async (tx) => {
          await tx.query("INSERT INTO claims (id, name) VALUES ('t2', 'lost')");
          await tx.exec("INSERT INTO audit (what) VALUES ('lost too')");
          throw failure;
        }),
      ).rejects.toBe(failure);

      expect((await db.query('SELECT count(*) AS n FROM claims')).rows).toEqual([{ n: 0 }]);
      expect((await db.query('SELECT * FROM audit')).rowCount).toBe(0);
    });

    it('when a statement inside fails, then the earlier writes of the transaction are gone too', async () => {
      await db.query("INSERT INTO claims (id, name) VALUES ('dup', 'first')");

      await expect(
        db.transaction(async (tx) => {
          await tx.query("UPDATE claims SET name = 'changed' WHERE id = 'dup'");
          await tx.query("INSERT INTO claims (id, name) VALUES ('dup', 'again')");
        }),
      ).rejects.toThrow(/duplicate key/);

      expect((await db.query('SELECT name FROM claims')).rows).toEqual([{ name: 'first' }]);
    });

    it('when a snapshot transaction tries to write, then the write is refused and nothing changes', async () => {
      await db.query("INSERT INTO claims (id, name) VALUES ('ro', 'kept')");

      await expect(
        db.transaction((tx) => tx.query("UPDATE claims SET name = 'changed' WHERE id = 'ro'"), {
          snapshot: true,
        }),
      ).rejects.toThrow(/read-only transaction/);

      expect((await db.query('SELECT name FROM claims')).rows).toEqual([{ name: 'kept' }]);
      expect(
        await db.transaction(async (tx) => (await tx.query('SELECT count(*) AS n FROM claims')).rows[0], {
          snapshot: true,
        }),
      ).toEqual({ n: 1 });
    });
  });

  return () => db;
}

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
const LEDGER: Migration = { version: 1, name: 'ledger', sql: 'CREATE TABLE ledger (id text PRIMARY KEY);' };

/** The migration runner's contract, each test on an empty database of the engine. */
export function migrationContract(fixture: Pick<DatabaseFixture, 'kind' | 'fresh' | 'dispose'>): void {
  let db: Database;

  beforeEach(async () => {
    db = await fixture.fresh();
  });

  afterAll(async () => {
    await fixture.dispose();
  });

  const tables = async (): Promise<string[]> => {
    const { rows } = await db.query<{ name: string }>(
      "SELECT table_name AS name FROM information_schema.tables WHERE table_schema = 'public' ORDER BY 1",
    );
    return rows.map((r) => r.name);
  };
  const recorded = async (): Promise<string[]> => {
    const { rows } = await db.query<{ entry: string }>(
      "SELECT namespace || '/' || version || '_' || name AS entry FROM schema_migrations ORDER BY namespace, version",
    );
    return rows.map((r) => r.entry);
  };

  describe(`runMigrations on ${fixture.kind}, the contract`, () => {
    it('when migrations are given out of order, then they are applied in version order and listed as applied', async () => {
      const applied = await runMigrations(db, [
        { namespace: 'registry', migrations: [ADD_INDEX, CREATE_CLAIMS, ADD_NAME] },
      ]);

      expect(applied).toEqual(['registry/1_claims', 'registry/2_claim_name', 'registry/3_claim_name_index']);
      expect(await tables()).toEqual(['claims', 'schema_migrations']);
      expect((await db.query("INSERT INTO claims (id, name) VALUES ('c1', 'Ada')")).rowCount).toBe(1);
    });

    it('when applied, then each migration is recorded with its namespace, version, name, checksum and time', async () => {
      await runMigrations(db, [{ namespace: 'registry', migrations: [CREATE_CLAIMS, ADD_NAME] }]);
      const { rows } = await db.query<{ checksum: string; just_now: boolean }>(
        "SELECT checksum, applied_at > now() - interval '1 minute' AS just_now FROM schema_migrations ORDER BY version",
      );

      expect(await recorded()).toEqual(['registry/1_claims', 'registry/2_claim_name']);
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
    });

    it('when an applied migration has changed, then the run is refused naming it, and nothing of the run is kept', async () => {
      await runMigrations(db, [{ namespace: 'registry', migrations: [CREATE_CLAIMS] }]);
      const edited = { ...CREATE_CLAIMS, sql: `${CREATE_CLAIMS.sql} -- edited` };

      await expect(
        runMigrations(db, [
          { namespace: 'billing', migrations: [LEDGER] },
          { namespace: 'registry', migrations: [edited, ADD_NAME] },
        ]),
      ).rejects.toThrow('Migration registry/1_claims changed after it was applied');

      expect(await tables()).toEqual(['claims', 'schema_migrations']);
      expect(await recorded()).toEqual(['registry/1_claims']);
    });

    it('when a migration fails, then the migrations before it in the same run are rolled back too', async () => {
      const broken: Migration = { version: 2, name: 'broken', sql: 'ALTER TABLE nowhere ADD COLUMN x int;' };

      await expect(
        runMigrations(db, [{ namespace: 'registry', migrations: [CREATE_CLAIMS, broken] }]),
      ).rejects.toThrow(/relation "nowhere" does not exist/);

      expect(await tables()).toEqual([]);
    });

    it('when the database was migrated by the hand-written runner before umzug, then what it recorded is not applied again', async () => {
      // What the runner before ADR 0019 left behind: its table, and a row per applied migration
      // with the first 16 hex digits of the SQL's sha256 as checksum.
      await db.exec(`CREATE TABLE schema_migrations (
        namespace text NOT NULL,
        version integer NOT NULL,
        name text NOT NULL,
        checksum text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now(),
        PRIMARY KEY (namespace, version)
      )`);
      await db.exec(CREATE_CLAIMS.sql);
      const oldChecksum = createHash('sha256').update(CREATE_CLAIMS.sql).digest('hex').slice(0, 16);
      await db.query(
        'INSERT INTO schema_migrations (namespace, version, name, checksum) VALUES ($1, $2, $3, $4)',
        ['registry', CREATE_CLAIMS.version, CREATE_CLAIMS.name, oldChecksum],
      );
      const source: MigrationSource = { namespace: 'registry', migrations: [CREATE_CLAIMS, ADD_NAME] };

      await expect(runMigrations(db, [source])).resolves.toEqual(['registry/2_claim_name']);
      await expect(runMigrations(db, [source])).resolves.toEqual([]);
      expect(await recorded()).toEqual(['registry/1_claims', 'registry/2_claim_name']);
      const edited = { ...CREATE_CLAIMS, sql: `${CREATE_CLAIMS.sql} -- edited` };
      await expect(runMigrations(db, [{ namespace: 'registry', migrations: [edited] }])).rejects.toThrow(
        'Migration registry/1_claims changed after it was applied',
      );
    });

    it('when two namespaces use the same versions, then each is applied and recorded apart', async () => {
      const applied = await runMigrations(db, [
        { namespace: 'registry', migrations: [CREATE_CLAIMS] },
        { namespace: 'billing', migrations: [LEDGER] },
      ]);

      expect(applied).toEqual(['registry/1_claims', 'billing/1_ledger']);
      expect(await recorded()).toEqual(['billing/1_ledger', 'registry/1_claims']);
    });

    it("when one namespace runs alone later, then the other's record is neither applied again nor checked against it", async () => {
      await runMigrations(db, [{ namespace: 'registry', migrations: [CREATE_CLAIMS] }]);

      await expect(runMigrations(db, [{ namespace: 'billing', migrations: [LEDGER] }])).resolves.toEqual([
        'billing/1_ledger',
      ]);
      await expect(
        runMigrations(db, [{ namespace: 'registry', migrations: [CREATE_CLAIMS] }]),
      ).resolves.toEqual([]);
    });
  });
}
