import { isTransientFailure } from '@svc/errors';
import { createDatabase, type Database } from '@svc/storage';
import { freshPostgresDatabase, startBlackholeProxy, type BlackholeProxy } from '@svc/test-kit';

// A database link that goes silent without closing (a partition, a dead NAT entry; issue #34):
// a statement must fail within the query timeout, not wait for TCP's 15 minutes, and the pool must
// never hand the half-open connection out again.

let database: { url: string; drop(): Promise<void> };
let proxy: BlackholeProxy;
let db: Database;

beforeAll(async () => {
  database = await freshPostgresDatabase('blackholed');
  const target = new URL(database.url);
  proxy = await startBlackholeProxy({ host: target.hostname, port: Number(target.port || 5432) });
  // One connection: a timed-out one given back to the pool would be the next one handed out.
  db = await createDatabase({ url: proxiedUrl(), maxConnections: 1, queryTimeoutMs: 500 });
});

/** The database, reached through the proxy. */
function proxiedUrl(): string {
  const proxied = new URL(database.url);
  proxied.port = String(proxy.port);
  return proxied.toString();
}

afterAll(async () => {
  await db?.close().catch(() => undefined);
  await proxy?.close();
  await database?.drop();
});

async function failsWithin<T>(ms: number, work: Promise<T>): Promise<unknown> {
  const started = performance.now();
  const outcome = await work.then(
    () => new Error('it succeeded'),
    (err: unknown) => err,
  );
  expect(performance.now() - started).toBeLessThan(ms);
  return outcome;
}

describe('PostgreSQL behind a link that goes silent', () => {
  it('when the link goes silent inside a transaction, then the transaction fails within the query timeout as transient, sends no ROLLBACK into the silence, and its connection is never handed out again', async () => {
    await db.query('SELECT 1');
    const transaction = await failsWithin(
      3000,
      db.transaction(async (tx) => {
        proxy.blackhole();
        await tx.query('SELECT 1');
      }),
    );
    expect(isTransientFailure(transaction)).toBe(true);
    proxy.heal();
    // The pool's one connection: a new one, or this would time out on the half-open one.
    const { rows } = await db.query<{ n: number }>('SELECT 41 + 1 AS n');
    expect(rows).toEqual([{ n: 42 }]);
  }, 30_000);

  it('when the link goes silent under a statement, then it fails within the query timeout as transient, and once the link heals the next statement works', async () => {
    await db.query('SELECT 1');
    proxy.blackhole();
    const statement = await failsWithin(3000, db.query('SELECT 1'));
    expect(statement).toBeInstanceOf(Error);
    expect(isTransientFailure(statement)).toBe(true);
    proxy.heal();
    const inTransaction = await db.transaction((tx) => tx.query<{ n: number }>('SELECT 7 AS n'));
    expect(inTransaction.rows).toEqual([{ n: 7 }]);
  }, 30_000);

  it("when the link goes silent while a transaction holds a row lock, then the server ends that session within the idle-in-transaction timeout and another connection's write to the row goes through", async () => {
    // The other side of the partition: the same database reached directly, as a healthy replica.
    const direct = await createDatabase({ url: database.url, maxConnections: 1 });
    const silent = await createDatabase({
      url: proxiedUrl(),
      maxConnections: 1,
      queryTimeoutMs: 500,
      idleInTransactionTimeoutMs: 1000,
    });
    try {
      await direct.query('CREATE TABLE IF NOT EXISTS fenced (id int PRIMARY KEY, n int NOT NULL)');
      await direct.query('INSERT INTO fenced VALUES (1, 0) ON CONFLICT (id) DO UPDATE SET n = 0');
      const cutOff = silent
        .transaction(async (tx) => {
          await tx.query('UPDATE fenced SET n = n + 1 WHERE id = 1');
          proxy.blackhole();
          await tx.query('SELECT 1');
        })
        .catch((err: unknown) => err);
      expect(isTransientFailure(await cutOff)).toBe(true);
      // Without the fence the server keeps the silent session's lock (TCP keepalive: hours) and
      // this write waits until its own query timeout (60 s) fails it.
      const started = performance.now();
      await direct.query('UPDATE fenced SET n = n + 10 WHERE id = 1');
      expect(performance.now() - started).toBeLessThan(5000);
      // The cut-off transaction never committed: only the healthy side's write is there.
      const { rows } = await direct.query<{ n: number }>('SELECT n FROM fenced WHERE id = 1');
      expect(rows).toEqual([{ n: 10 }]);
    } finally {
      proxy.heal();
      await silent.close().catch(() => undefined);
      await direct.close();
    }
  }, 30_000);
});
