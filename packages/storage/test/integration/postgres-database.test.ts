import { freshPostgresDatabase } from '@svc/test-kit';
import { createDatabase, type Database } from '../../src';

let database: { url: string; drop(): Promise<void> };
let db: Database;

beforeAll(async () => {
  database = await freshPostgresDatabase('storage_pg');
  // One connection: a transaction that did not give its connection back would hang the next query.
  db = await createDatabase({ url: database.url, maxConnections: 1, applicationName: 'storage-test' });
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
  await database.drop();
});

describe('PostgreSQL database', () => {
  it('when opened from a postgres:// URL, then it is a postgres database that answers ping', async () => {
    expect(db.kind).toBe('postgres');
    await expect(db.ping()).resolves.toBeUndefined();
  });

  it('when rows are written and read with parameters, then rowCount counts rows written and rows returned', async () => {
    const inserted = await db.query('INSERT INTO claims (id, name) VALUES ($1, $2), ($3, $4)', [
      'c1',
      'Ada',
      'c2',
      "O'Brien",
    ]);
    const read = await db.query<{ id: string; name: string }>('SELECT id, name FROM claims ORDER BY id');
    const updated = await db.query("UPDATE claims SET name = 'X' WHERE id = 'c2'");

    expect(inserted.rowCount).toBe(2);
    expect(read.rowCount).toBe(2);
    expect(read.rows).toEqual([
      { id: 'c1', name: 'Ada' },
      { id: 'c2', name: "O'Brien" },
    ]);
    expect(updated.rowCount).toBe(1);
  });

  it('when counting or reading int8 and bigserial columns, then they come back as numbers, not strings', async () => {
    await db.query("INSERT INTO claims (id, name, score) VALUES ('a', 'A', 9007199254740991)");
    await db.query("INSERT INTO audit (what) VALUES ('one'), ('two')");

    const { rows } = await db.query<{ total: unknown; score: unknown }>(
      'SELECT count(*) AS total, max(score) AS score FROM claims',
    );
    const audit = await db.query<{ id: unknown }>('SELECT id FROM audit ORDER BY id');

    expect(rows[0]).toEqual({ total: 1, score: 9007199254740991 });
    expect(audit.rows.map((r) => r.id)).toEqual([1, 2]);
  });

  it('when the connection was named, then the server sees the application name', async () => {
    const { rows } = await db.query<{ name: string }>('SELECT current_setting($1) AS name', [
      'application_name',
    ]);

    expect(rows[0]?.name).toBe('storage-test');
  });

  it('when an int8 is beyond 2^53, then it still comes back as a number, so rows stay JSON-serialisable', async () => {
    const { rows } = await db.query<{ big: unknown }>('SELECT 9007199254740993::int8 AS big');

    expect(typeof rows[0]?.big).toBe('number');
    expect(JSON.stringify(rows)).toBe('[{"big":9007199254740992}]');
  });
});

describe('PostgreSQL transactions', () => {
  it('when the function resolves, then its writes are committed and its value returned', async () => {
    const value = await db.transaction(async (tx) => {
      await tx.query("INSERT INTO claims (id, name) VALUES ('t1', 'kept')");
      await tx.exec("INSERT INTO audit (what) VALUES ('created t1')");
      return 'done';
    });

    expect(value).toBe('done');
    expect((await db.query('SELECT id FROM claims')).rows).toEqual([{ id: 't1' }]);
    expect((await db.query('SELECT what FROM audit')).rows).toEqual([{ what: 'created t1' }]);
  });

  it('when the function throws, then its writes are rolled back, the error comes out unchanged and the connection is reusable', async () => {
    const failure = new Error('publishing failed');

    await expect(
      db.transaction(async (tx) => {
        await tx.query("INSERT INTO claims (id, name) VALUES ('t2', 'lost')");
        throw failure;
      }),
    ).rejects.toBe(failure);

    expect((await db.query('SELECT count(*) AS n FROM claims')).rows).toEqual([{ n: 0 }]);
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

  it('when a transaction is open, then other connections do not see its writes until it commits', async () => {
    const other = await createDatabase({ url: database.url, maxConnections: 1 });
    try {
      let seenInside: unknown;
      await db.transaction(async (tx) => {
        await tx.query("INSERT INTO claims (id, name) VALUES ('iso', 'hidden')");
        seenInside = (await other.query('SELECT count(*) AS n FROM claims')).rows[0];
      });

      expect(seenInside).toEqual({ n: 0 });
      expect((await other.query('SELECT count(*) AS n FROM claims')).rows[0]).toEqual({ n: 1 });
    } finally {
      await other.close();
    }
  });
});

describe('PostgreSQL prepared statements', () => {
  it('when a named query runs again with other values, then the prepared plan answers for them', async () => {
    const sql = 'SELECT $1::int * 2 AS doubled';
    const first = await db.query<{ doubled: number }>(sql, [2], { name: 'storage_test_double' });
    const second = await db.query<{ doubled: number }>(sql, [21], { name: 'storage_test_double' });
    expect(first.rows[0]?.doubled).toBe(4);
    expect(second.rows[0]?.doubled).toBe(42);
    const prepared = await db.query<{ name: string }>(
      "SELECT name FROM pg_prepared_statements WHERE name = 'storage_test_double'",
    );
    expect(prepared.rows).toHaveLength(1);
  });
});

describe('PostgreSQL session settings', () => {
  it('when a pool is opened with session settings, then every session has them', async () => {
    const tuned = await createDatabase({
      url: database.url,
      maxConnections: 2,
      sessionSettings: { synchronous_commit: 'off' },
    });
    try {
      const setting = await tuned.query<{ synchronous_commit: string }>('SHOW synchronous_commit');
      expect(setting.rows[0]?.synchronous_commit).toBe('off');
      const plain = await db.query<{ synchronous_commit: string }>('SHOW synchronous_commit');
      expect(plain.rows[0]?.synchronous_commit).toBe('on');
    } finally {
      await tuned.close();
    }
  });
});
