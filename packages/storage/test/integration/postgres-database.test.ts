import { freshPostgresDatabase } from '@svc/test-kit';
import { createDatabase, type Database } from '../../src';
import { databaseContract } from '../database-contract';

let database: { url: string; drop(): Promise<void> };

// The shared contract (the same one runs against PGlite in test/unit/pglite-database.test.ts).
const opened = databaseContract({
  kind: 'postgres',
  open: async () => {
    database = await freshPostgresDatabase('storage_pg');
    // One connection: a transaction that did not give its connection back would hang the next query.
    return createDatabase({ url: database.url, maxConnections: 1, applicationName: 'storage-test' });
  },
  afterClose: () => database.drop(),
});
let db: Database;

beforeAll(() => {
  db = opened();
});

describe('PostgreSQL database', () => {
  it('when the connection was named, then the server sees the application name', async () => {
    const { rows } = await db.query<{ name: string }>('SELECT current_setting($1) AS name', [
      'application_name',
    ]);

    expect(rows[0]?.name).toBe('storage-test');
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

  it('when rows commit between the reads of a snapshot transaction, then its later reads do not see them', async () => {
    const other = await createDatabase({ url: database.url, maxConnections: 1 });
    try {
      const count = async (q: Pick<Database, 'query'>): Promise<unknown> =>
        (await q.query('SELECT count(*) AS n FROM claims')).rows[0];
      const [before, after] = await db.transaction(
        async (tx) => {
          const first = await count(tx);
          await other.query("INSERT INTO claims (id, name) VALUES ('late', 'committed between')");
          return [first, await count(tx)];
        },
        { snapshot: true },
      );

      expect([before, after]).toEqual([{ n: 0 }, { n: 0 }]);
      expect(await count(db)).toEqual({ n: 1 });
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
      // The fence on a silent replica's locks holds beside the caller's settings.
      const fence = await tuned.query<{ idle_in_transaction_session_timeout: string }>(
        'SHOW idle_in_transaction_session_timeout',
      );
      expect(fence.rows[0]?.idle_in_transaction_session_timeout).toBe('30s');
    } finally {
      await tuned.close();
    }
  });

  it('when a pool is opened, then the server ends a session idle in its transaction for 30 s, unless told 0 (never)', async () => {
    const plain = await db.query<{ idle_in_transaction_session_timeout: string }>(
      'SHOW idle_in_transaction_session_timeout',
    );
    expect(plain.rows[0]?.idle_in_transaction_session_timeout).toBe('30s');
    const unfenced = await createDatabase({
      url: database.url,
      maxConnections: 1,
      idleInTransactionTimeoutMs: 0,
    });
    try {
      const off = await unfenced.query<{ idle_in_transaction_session_timeout: string }>(
        'SHOW idle_in_transaction_session_timeout',
      );
      expect(off.rows[0]?.idle_in_transaction_session_timeout).toBe('0');
    } finally {
      await unfenced.close();
    }
  });
});
