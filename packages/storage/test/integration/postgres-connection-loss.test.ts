import pg from 'pg';
import { sleep, waitFor } from '@svc/test-kit';
import { freshPostgresDatabase } from '@svc/test-kit';
import { isTransientFailure } from '@svc/errors';
import { createDatabase, type Database } from '../../src';

let database: { url: string; drop(): Promise<void> };
let db: Database;
let admin: pg.Client;
const reported: Error[] = [];

/** What a PostgreSQL restart does to one session: the server ends it (57P01). */
async function terminate(pid: number): Promise<void> {
  await admin.query('SELECT pg_terminate_backend($1)', [pid]);
}

beforeAll(async () => {
  database = await freshPostgresDatabase('storage_loss');
  // One connection: the next query can only work if the broken client was replaced.
  db = await createDatabase({
    url: database.url,
    maxConnections: 1,
    applicationName: 'storage-loss-test',
    onError: (err) => reported.push(err),
  });
  admin = new pg.Client({ connectionString: database.url });
  await admin.connect();
  await db.exec('CREATE TABLE notes (id text PRIMARY KEY)');
});

afterAll(async () => {
  await admin.end();
  await db.close();
  await database.drop();
});

beforeEach(() => {
  reported.length = 0;
});

describe('PostgreSQL connection loss', () => {
  it('when the connection of an open transaction is terminated, then the process survives, the transaction fails as transient and the next queries work', async () => {
    const outcome = db.transaction(async (tx) => {
      const { rows } = await tx.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
      await tx.query("INSERT INTO notes (id) VALUES ('lost')");
      await terminate(rows[0]?.pid ?? 0);
      // The server's goodbye arrives while no query runs: the client emits 'error' now.
      await waitFor(() => reported.length > 0, { timeoutMs: 5000, what: 'the connection error' });
      await tx.query("INSERT INTO notes (id) VALUES ('after')");
    });

    const failure = await outcome.then(
      () => undefined,
      (err: unknown) => err,
    );
    expect(failure).toBeDefined();
    expect(isTransientFailure(failure)).toBe(true);
    expect(reported.length).toBeGreaterThan(0);

    await expect(db.ping()).resolves.toBeUndefined();
    await db.transaction(async (tx) => {
      await tx.query("INSERT INTO notes (id) VALUES ('next')");
    });
    const { rows } = await db.query<{ id: string }>('SELECT id FROM notes ORDER BY id');
    expect(rows.map((r) => r.id)).toEqual(['next']);
  });

  it('when an idle pooled connection is terminated, then the error is reported, not thrown, and the next query works', async () => {
    const { rows } = await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');

    await terminate(rows[0]?.pid ?? 0);
    await waitFor(() => reported.length > 0, { timeoutMs: 5000, what: 'the idle client error' });
    await sleep(50);

    const next = await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    expect(next.rows[0]?.pid).not.toBe(rows[0]?.pid);
  });

  it('when the database cannot be reached, then the query fails as transient and quickly', async () => {
    const url = new URL(database.url);
    url.port = '1'; // nothing listens there: connection refused
    url.pathname = '/postgres'; // not created on open: the first query is the first connect
    const unreachable = await createDatabase({ url: url.toString() });
    const started = performance.now();

    const failure = await unreachable.query('SELECT 1').catch((err: unknown) => err);

    expect(performance.now() - started).toBeLessThan(2000);
    await unreachable.close();
    expect(isTransientFailure(failure)).toBe(true);
  });
});
