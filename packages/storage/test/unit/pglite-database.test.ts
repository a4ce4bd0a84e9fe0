import { createDatabase, type Database } from '../../src';

let db: Database;

beforeAll(async () => {
  db = await createDatabase({ url: 'pglite://memory' });
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
});

describe('PGlite database', () => {
  it('when opened from pglite://memory, then it is a PGlite database that answers ping', async () => {
    expect(db.kind).toBe('pglite');
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
    expect(read.rows).toEqual([
      { id: 'c1', name: 'Ada' },
      { id: 'c2', name: "O'Brien" },
    ]);
  });

  it('when a SELECT returns rows, then rowCount is the number of rows returned, as with pg', async () => {
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

  it('when counting or reading int8 and bigserial columns, then they come back as numbers, not bigints', async () => {
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

  it('when an int8 is beyond 2^53, then it still comes back as a number, so rows stay JSON-serialisable', async () => {
    const { rows } = await db.query<{ big: unknown }>('SELECT 9007199254740993::int8 AS big');

    expect(typeof rows[0]?.big).toBe('number');
    expect(JSON.stringify(rows)).toBe('[{"big":9007199254740992}]');
  });
});

describe('PGlite transactions', () => {
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

  it('when the function throws, then none of its writes remain and the error comes out unchanged', async () => {
    const failure = new Error('publishing failed');

    await expect(
      db.transaction(async (tx) => {
        await tx.query("INSERT INTO claims (id, name) VALUES ('t2', 'lost')");
        await tx.exec("INSERT INTO audit (what) VALUES ('lost too')");
        throw failure;
      }),
    ).rejects.toBe(failure);

    expect((await db.query('SELECT * FROM claims')).rowCount).toBe(0);
    expect((await db.query('SELECT * FROM audit')).rowCount).toBe(0);
  });

  it('when a statement inside fails, then the earlier writes are rolled back and the database stays usable', async () => {
    await db.query("INSERT INTO claims (id, name) VALUES ('dup', 'first')");

    await expect(
      db.transaction(async (tx) => {
        await tx.query("UPDATE claims SET name = 'changed' WHERE id = 'dup'");
        await tx.query("INSERT INTO claims (id, name) VALUES ('dup', 'again')");
      }),
    ).rejects.toThrow(/duplicate key/);

    expect((await db.query('SELECT name FROM claims')).rows).toEqual([{ name: 'first' }]);
  });
});

describe('createDatabase', () => {
  it('when the URL has another scheme, then it refuses naming the scheme and the ones it supports', async () => {
    await expect(createDatabase({ url: 'mysql://root@localhost/app' })).rejects.toThrow(
      'Unsupported database URL scheme: mysql (use postgres:// or pglite://)',
    );
    await expect(createDatabase({ url: 'sqlite:app.db' })).rejects.toThrow(
      'Unsupported database URL scheme: sqlite',
    );
  });
});
