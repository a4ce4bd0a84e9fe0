import { isTransientFailure } from '@svc/errors';
import { leafHash, rootOf } from '@svc/merkle-log';
import { createDatabase, runMigrations, type Database, type Queryable } from '@svc/storage';
import { freshPostgresDatabase, startBlackholeProxy, type BlackholeProxy } from '@svc/test-kit';
import { canonicalJson, TransparencyLog, transparencyLogMigrations, type NewEntry } from '../../src';

// The log's appenders on two replicas (issue #34, "Singletons that are not"): each replica appends
// through its own pool, and an append is made once by locking the log's state row FOR UPDATE in the
// appending transaction (indexes follow commit order) and by the unique source id. The lock is the
// transaction's: it ends with the holder's session. A holder that dies closes its connection and
// the server rolls it back at once; one cut off from the database keeps its session (the server
// sees a quiet connection) until idle_in_transaction_session_timeout ends it (30 s in production,
// 1 s here). Its commit can never land after that, so there is no lease to fence beyond it.

let database: { url: string; drop(): Promise<void> };
let a: Database;
let b: Database;
const log = new TransparencyLog();

beforeAll(async () => {
  database = await freshPostgresDatabase('transparency_replicas');
  a = await createDatabase({ url: database.url });
  await runMigrations(a, [transparencyLogMigrations]);
  b = await createDatabase({ url: database.url });
});
afterAll(async () => {
  await a.close();
  await b.close();
  await database.drop();
});

const entryOf = (source: string): NewEntry => ({
  sourceId: source,
  entry: canonicalJson({ decision: 'license.activated', source }),
  parties: ['plat_a'],
  at: new Date('2026-12-01T10:00:00.000Z'),
});

/** The log as stored (its root checked against its leaves): its size, its indexes and sources in order. */
async function stored(): Promise<{ size: number; indexes: number[]; sources: string[] }> {
  const { rows } = await a.query<{ idx: number; source_id: string; leaf_hash: Buffer }>(
    'SELECT idx, source_id, leaf_hash FROM transparency_entries ORDER BY idx',
  );
  const { rootHash } = await log.rootAt(a);
  expect(rootHash).toEqual(rootOf(rows.map((r) => r.leaf_hash)));
  for (const row of rows) expect(row.leaf_hash).toEqual(leafHash(entryOf(row.source_id).entry));
  return {
    size: await log.size(a),
    indexes: rows.map((r) => Number(r.idx)),
    sources: rows.map((r) => r.source_id),
  };
}

const upTo = (n: number) => Array.from({ length: n }, (_, i) => i);

/** A TCP proxy of the test's own in front of the database. */
function proxyToDatabase(): Promise<BlackholeProxy> {
  const target = new URL(database.url);
  return startBlackholeProxy({ host: target.hostname, port: Number(target.port || 5432) });
}

/** A pool reaching the database through `proxy`, with one connection and short fences. */
function throughProxy(proxy: BlackholeProxy, options: { idleInTransactionTimeoutMs?: number } = {}) {
  const url = new URL(database.url);
  url.port = String(proxy.port);
  return createDatabase({ url: url.toString(), maxConnections: 1, queryTimeoutMs: 1500, ...options });
}

/** Starts a transaction on `db` that appends `sources`, then waits for `until` before committing. */
function appendAndHold(db: Database, sources: string[], until: Promise<void>) {
  let appended!: () => void;
  const holding = new Promise<void>((resolve) => (appended = resolve));
  const outcome = db
    .transaction(async (tx: Queryable) => {
      await log.appendMany(tx, sources.map(entryOf));
      appended();
      await until;
      await tx.query('SELECT 1');
    })
    .then(
      () => 'committed',
      (err: unknown) => err,
    );
  return { holding, outcome };
}

describe('the transparency log appended by two replicas', () => {
  it('when both replicas append overlapping batches at once, many times, then each source is logged once, at indexes from 0 without a gap, and the tree is whole', async () => {
    const rounds = 30;
    for (let round = 0; round < rounds; round += 1) {
      // Each replica appends 10 sources, 5 of them the other's too (an event both consumed).
      const base = round * 15;
      const mine = upTo(10).map((i) => `evt_${base + i}`);
      const theirs = upTo(10).map((i) => `evt_${base + 5 + i}`);
      const answers = await Promise.all([
        a.transaction((tx) => log.appendMany(tx, mine.map(entryOf))),
        b.transaction((tx) => log.appendMany(tx, theirs.map(entryOf))),
      ]);
      // The overlap is appended by one of the two; the other is told where it is.
      const appended = answers.flat().filter((p) => p.appended).length;
      expect(appended).toBe(15);
    }
    const after = await stored();
    expect(after.size).toBe(rounds * 15);
    expect(after.indexes).toEqual(upTo(rounds * 15));
    expect(new Set(after.sources).size).toBe(rounds * 15);
  });

  it('when the replica holding the log dies in the middle of an append, then the other replica appends at once at the next index and nothing of the dead one is logged', async () => {
    const before = await stored();
    const proxy = await proxyToDatabase();
    const dying = await throughProxy(proxy);
    try {
      // The process is gone: what it would have done next runs only after the test looked.
      let afterDeath!: () => void;
      const held = appendAndHold(
        dying,
        ['dead_1', 'dead_2'],
        new Promise<void>((resolve) => (afterDeath = resolve)),
      );
      await held.holding;
      // The other replica waits for the log's lock...
      const started = performance.now();
      const other = b.transaction((tx) => log.append(tx, entryOf('alive_1')));
      await new Promise((resolve) => setTimeout(resolve, 200));
      // ...until the holder's process dies: its connection closes and the server rolls it back.
      await proxy.close();
      const position = await other;
      expect(performance.now() - started).toBeLessThan(1500);
      expect(position).toMatchObject({ index: before.size, appended: true });
      afterDeath();
      expect(await held.outcome).toBeInstanceOf(Error);
      const after = await stored();
      expect(after.indexes).toEqual(upTo(before.size + 1));
      expect(after.sources.filter((s) => s.startsWith('dead_'))).toEqual([]);
    } finally {
      await proxy.close().catch(() => undefined);
      await dying.close().catch(() => undefined);
    }
  });

  it('when the replica holding the log is cut off from the database, then its session ends within the idle-in-transaction timeout, the other replica appends, and the cut-off commit never lands', async () => {
    const before = await stored();
    const proxy = await proxyToDatabase();
    // In production the fence is 30 s; 1 s here. Without it this replica's lock outlives the test.
    const cutOff = await throughProxy(proxy, { idleInTransactionTimeoutMs: 1000 });
    try {
      let commit!: () => void;
      const held = appendAndHold(
        cutOff,
        ['cut_1', 'cut_2', 'cut_3'],
        new Promise<void>((resolve) => (commit = resolve)),
      );
      await held.holding;
      proxy.blackhole();
      const started = performance.now();
      const position = await b.transaction((tx) => log.append(tx, entryOf('alive_2')));
      const waited = performance.now() - started;
      // It waited for the server to end the silent session (1 s), not for TCP (hours).
      expect(waited).toBeGreaterThan(500);
      expect(waited).toBeLessThan(5000);
      expect(position).toMatchObject({ index: before.size, appended: true });
      // The link heals; the cut-off replica goes on to commit what it appended: too late.
      proxy.heal();
      commit();
      const outcome = await held.outcome;
      expect(outcome).toBeInstanceOf(Error);
      expect(isTransientFailure(outcome)).toBe(true);
      const after = await stored();
      expect(after.indexes).toEqual(upTo(before.size + 1));
      expect(after.sources.filter((s) => s.startsWith('cut_'))).toEqual([]);
      // And its next append, on a new connection, goes to the end of the log as any other.
      const next = await cutOff.transaction((tx) => log.append(tx, entryOf('cut_again')));
      expect(next).toMatchObject({ index: before.size + 1, appended: true });
    } finally {
      proxy.heal();
      await cutOff.close().catch(() => undefined);
      await proxy.close();
    }
  });
});
