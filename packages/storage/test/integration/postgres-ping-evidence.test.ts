import pg from 'pg';
import { freshPostgresDatabase, sleep, waitFor } from '@svc/test-kit';
import { ANSWER_EVIDENCE_MS, createDatabase, type Database } from '../../src';

// `/readyz` pings the database every few seconds. Under load a `SELECT 1` queued behind a busy
// pool answered too late and every replica left the load balancer with nothing down (#34); a query
// the server answered just now says as much as the probe would. A lost connection since does not.

let database: { url: string; drop(): Promise<void> };
let db: Database;
let admin: pg.Client;
const reported: Error[] = [];

const name = () => decodeURIComponent(new URL(database.url).pathname.slice(1));

beforeAll(async () => {
  database = await freshPostgresDatabase('storage_ping');
  // One connection: a long query holds the whole pool.
  db = await createDatabase({ url: database.url, maxConnections: 1, onError: (err) => reported.push(err) });
  const server = new URL(database.url);
  server.pathname = '/postgres';
  admin = new pg.Client({ connectionString: server.toString() });
  await admin.connect();
});

afterAll(async () => {
  await admin.query(`ALTER DATABASE "${name()}" ALLOW_CONNECTIONS true`);
  await admin.end();
  await db.close();
  await database.drop();
});

/** Which settles first: the ping or the query holding the pool's only connection. */
async function firstOf(ping: Promise<void>, holding: Promise<unknown>): Promise<'ping' | 'holding'> {
  return Promise.race([ping.then(() => 'ping' as const), holding.then(() => 'holding' as const)]);
}

describe('ping under a busy pool', () => {
  it('when a query was answered just now and the pool is busy, then ping answers without waiting for a connection', async () => {
    await db.query('SELECT 1');
    const holding = db.query('SELECT pg_sleep(1.5)');
    expect(await firstOf(db.ping(), holding)).toBe('ping');
    await holding;
  });

  it('when nothing was answered lately, then ping asks the server and waits its turn', async () => {
    await sleep(ANSWER_EVIDENCE_MS + 200);
    const holding = db.query('SELECT pg_sleep(1)');
    const ping = db.ping();
    expect(await firstOf(ping, holding)).toBe('holding');
    await expect(ping).resolves.toBeUndefined();
  });

  it('when the server ended the connection after the last answer and refuses new ones, then ping fails though an answer is recent', async () => {
    const { rows } = await db.query<{ pid: number }>('SELECT pg_backend_pid() AS pid');
    reported.length = 0;
    await admin.query(`ALTER DATABASE "${name()}" ALLOW_CONNECTIONS false`);
    await admin.query('SELECT pg_terminate_backend($1)', [rows[0]?.pid]);
    await waitFor(() => reported.length > 0, { timeoutMs: 5000, what: 'the idle connection ending' });
    await expect(db.ping()).rejects.toThrow(/not currently accepting connections/);
    await admin.query(`ALTER DATABASE "${name()}" ALLOW_CONNECTIONS true`);
    await expect(db.ping()).resolves.toBeUndefined();
  });

  it('when a transaction fails for a reason of its own, then the server still counts as answering', async () => {
    await db.exec('CREATE TABLE IF NOT EXISTS taken (id text PRIMARY KEY)');
    await db.query("INSERT INTO taken (id) VALUES ('a') ON CONFLICT DO NOTHING");
    await expect(
      db.transaction(async (tx) => {
        await tx.query("INSERT INTO taken (id) VALUES ('a')");
      }),
    ).rejects.toMatchObject({ code: '23505' });
    const holding = db.query('SELECT pg_sleep(1)');
    expect(await firstOf(db.ping(), holding)).toBe('ping');
    await holding;
  });
});
