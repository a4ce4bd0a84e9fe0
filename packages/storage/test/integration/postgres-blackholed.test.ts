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
  const proxied = new URL(database.url);
  proxied.port = String(proxy.port);
  // One connection: a timed-out one given back to the pool would be the next one handed out.
  db = await createDatabase({ url: proxied.toString(), maxConnections: 1, queryTimeoutMs: 500 });
});

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
});
