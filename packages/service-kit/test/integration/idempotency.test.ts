import { spawn } from 'node:child_process';
import path from 'node:path';
import type { Request, Response } from 'express';
import { ManualClock } from '@svc/clock';
import { createLogger } from '@svc/logger';
import { createDatabase, runMigrations, type Database, type MigrationSource } from '@svc/storage';
import { freshPostgresDatabase, sleep } from '@svc/test-kit';
import { createService, idempotencyMigrations, IDEMPOTENCY_IN_FLIGHT_MS, type Service } from '../../src';
import { bearer, CLAIMS, SECRET } from '../unit/service.fixture';

const ROOT = path.resolve(__dirname, '../../../..');

const THINGS: MigrationSource = {
  namespace: 'things',
  migrations: [
    {
      version: 1,
      name: 'things',
      sql: `CREATE TABLE things (id text PRIMARY KEY, body jsonb);
CREATE TABLE labels (label text, CONSTRAINT labels_once UNIQUE (label) DEFERRABLE INITIALLY DEFERRED);
-- A COMMIT that takes 300 ms: a deferred constraint trigger runs at COMMIT.
CREATE TABLE slow_things (id text PRIMARY KEY);
CREATE FUNCTION slow_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN PERFORM pg_sleep(0.3); RETURN NULL; END $$;
CREATE CONSTRAINT TRIGGER slow_things_commit AFTER INSERT ON slow_things
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION slow_commit();`,
    },
  ],
};

// The same middleware over both engines: PostgreSQL (cluster mode) and PGlite (the embedded default).
describe.each(['postgres', 'pglite'] as const)('Idempotency-Key in the owning service (%s)', (engine) => {
  let database: { url: string; drop(): Promise<void> } | undefined;
  let db: Database;
  let service: Service;
  let url: string;
  const clock = new ManualClock('2026-11-22T10:00:00.000Z');

  beforeAll(async () => {
    if (engine === 'postgres') {
      database = await freshPostgresDatabase('idempotency');
      db = await createDatabase({ url: database.url });
    } else {
      db = await createDatabase({ url: 'pglite://memory' });
    }
    await runMigrations(db, [idempotencyMigrations, THINGS]);
    let next = 0;
    const newId = () => `thing_${(next += 1)}_${Math.random().toString(36).slice(2, 8)}`;
    service = createService({
      name: 'things',
      logger: createLogger('test', { level: 'silent' }),
      internalJwtSecret: SECRET,
      idempotency: { db, clock },
      routes: (router) => {
        router.post('/things', async (req: Request, res: Response) => {
          const id = newId();
          await db.transaction((tx) =>
            tx.query('INSERT INTO things (id, body) VALUES ($1, $2)', [id, req.body]),
          );
          res.status(201).json({ data: { id } });
        });
        // A single statement outside any transaction is guarded too.
        router.post('/plain-things', async (req: Request, res: Response) => {
          const id = newId();
          await db.query('INSERT INTO things (id, body) VALUES ($1, $2)', [id, req.body]);
          res.status(201).json({ data: { id } });
        });
        router.post('/slow-things', async (req: Request, res: Response) => {
          const id = newId();
          await db.transaction(async (tx) => {
            await tx.query('INSERT INTO things (id, body) VALUES ($1, $2)', [id, req.body]);
            await sleep(200);
          });
          res.status(201).json({ data: { id } });
        });
        router.post('/committed-then-failed', async (req: Request) => {
          await db.query('INSERT INTO things (id, body) VALUES ($1, $2)', [newId(), req.body]);
          throw new Error('after the commit');
        });
        router.post('/committed-then-crashed', async (req: Request) => {
          await db.query('INSERT INTO things (id, body) VALUES ($1, $2)', [newId(), req.body]);
          // The process dies before it answers: the client sees the connection go.
          req.socket.destroy();
        });
        router.post('/dying-things', async (req: Request, res: Response) => {
          const id = newId();
          await db.transaction((tx) =>
            tx.query('INSERT INTO things (id, body) VALUES ($1, $2)', [id, req.body]),
          );
          res.status(201).json({ data: { id } });
        });
        // The route reads its own write back (through the pool) before it answers.
        router.post('/things-read-back', async (req: Request, res: Response) => {
          const id = newId();
          await db.transaction((tx) =>
            tx.query('INSERT INTO things (id, body) VALUES ($1, $2)', [id, req.body]),
          );
          const { rows } = await db.query<{ id: string }>('SELECT id FROM things WHERE id = $1', [id]);
          res.status(201).json({ data: { id: rows[0]?.id ?? null } });
        });
        // The route waits on something else (another service, a timer) between its write and its answer.
        router.post('/things-then-wait', async (req: Request, res: Response) => {
          const id = newId();
          await db.transaction((tx) =>
            tx.query('INSERT INTO things (id, body) VALUES ($1, $2)', [id, req.body]),
          );
          await sleep(30);
          res.status(201).json({ data: { id } });
        });
        // The write is still committing (slowly) when the route reads it back after other work.
        router.post('/slow-commit-read-back', async (_req: Request, res: Response) => {
          const id = newId();
          await db.transaction((tx) => tx.query('INSERT INTO slow_things (id) VALUES ($1)', [id]));
          await sleep(20);
          const { rows } = await db.query<{ id: string }>('SELECT id FROM slow_things WHERE id = $1', [id]);
          res.status(201).json({ data: { id, found: rows.length === 1 } });
        });
        router.post('/two-things', async (req: Request, res: Response) => {
          const ids = [newId(), newId()];
          for (const id of ids)
            await db.transaction((tx) =>
              tx.query('INSERT INTO things (id, body) VALUES ($1, $2)', [id, req.body]),
            );
          res.status(201).json({ data: { ids } });
        });
        // The write fails only at COMMIT (a deferred constraint): its answer must not say it was done.
        router.post('/labels', async (req: Request, res: Response) => {
          const { label } = req.body as { label: string };
          await db.transaction(async (tx) => {
            await tx.query('INSERT INTO labels (label) VALUES ($1)', [label]);
            await tx.query('INSERT INTO labels (label) VALUES ($1)', [label]);
          });
          res.status(201).json({ data: { label } });
        });
        router.post('/missing', (_req: Request, res: Response) => {
          res.status(404).json({ error: { code: 'NOT_FOUND', message: 'no such thing' } });
        });
      },
    });
    ({ url } = await service.listen(0, '127.0.0.1'));
  });

  afterAll(async () => {
    await service.stop();
    await db.close();
    await database?.drop();
  });

  async function post(path: string, key: string, body: unknown = {}, base = url) {
    const response = await fetch(base + path, {
      method: 'POST',
      headers: { authorization: bearer(), 'content-type': 'application/json', 'idempotency-key': key },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    return {
      status: response.status,
      headers: response.headers,
      text,
      body: text === '' ? undefined : JSON.parse(text),
    };
  }

  async function things(): Promise<number> {
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM things');
    return rows[0]?.n ?? -1;
  }

  it('when a write is retried with the same key and body, then it ran once and the retry gets the same answer, marked replayed', async () => {
    const before = await things();
    const first = await post('/things', 'same-1', { a: 1 });
    const again = await post('/things', 'same-1', { a: 1 });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.text).toBe(first.text);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.headers.get('content-type')).toContain('application/json');
    expect(first.headers.get('idempotent-replayed')).toBeNull();
    expect((await things()) - before).toBe(1);
  });

  it('when the same key comes with another body, then 409 IDEMPOTENCY_CONFLICT and nothing runs', async () => {
    await post('/things', 'other-1', { a: 1 });
    const before = await things();
    const other = await post('/things', 'other-1', { a: 2 });
    expect(other.status).toBe(409);
    expect(other.body.error.code).toBe('IDEMPOTENCY_CONFLICT');
    expect(other.body.error.details.reason).toBe('different_request');
    expect(await things()).toBe(before);
  });

  it('when a plain statement writes outside a transaction, then it is guarded as well', async () => {
    const before = await things();
    const first = await post('/plain-things', 'plain-1', { p: 1 });
    const again = await post('/plain-things', 'plain-1', { p: 1 });
    expect(again.body).toEqual(first.body);
    expect((await things()) - before).toBe(1);
  });

  it('when two attempts with one key run at the same time, then one write happens and the other attempt does not write', async () => {
    const before = await things();
    const answers = await Promise.all([
      post('/slow-things', 'race-1', { r: 1 }),
      post('/slow-things', 'race-1', { r: 1 }),
      post('/slow-things', 'race-1', { r: 1 }),
    ]);
    expect((await things()) - before).toBe(1);
    const created = answers.filter((a) => a.status === 201);
    expect(created.length).toBeGreaterThanOrEqual(1);
    for (const answer of answers) {
      if (answer.status === 201) expect(answer.body).toEqual(created[0]?.body);
      else expect(answer.body.error.code).toBe('IDEMPOTENCY_CONFLICT');
    }
    const later = await post('/slow-things', 'race-1', { r: 1 });
    expect(later.body).toEqual(created[0]?.body);
  });

  it('when the write committed but the answer was a 500, then the 500 is not kept and the write never runs again', async () => {
    const before = await things();
    const failed = await post('/committed-then-failed', 'fail-1');
    expect(failed.status).toBe(500);
    const retry = await post('/committed-then-failed', 'fail-1');
    expect(retry.status).toBe(409);
    expect(retry.body.error.details.reason).toBe('in_progress');
    expect(retry.headers.get('retry-after')).toBe('1');
    clock.advance(IDEMPOTENCY_IN_FLIGHT_MS);
    const late = await post('/committed-then-failed', 'fail-1');
    expect(late.status).toBe(409);
    expect(late.body.error.details.reason).toBe('answer_lost');
    expect((await things()) - before).toBe(1);
  });

  it('when the service died after its commit and before answering, then a retry is told so and nothing runs twice', async () => {
    const before = await things();
    await expect(post('/committed-then-crashed', 'crash-1')).rejects.toThrow();
    const retry = await post('/committed-then-crashed', 'crash-1');
    expect(retry.status).toBe(409);
    expect(retry.body.error.code).toBe('IDEMPOTENCY_CONFLICT');
    expect((await things()) - before).toBe(1);
  });

  it('when a request changed nothing (404), then nothing is kept and a retry runs again', async () => {
    const first = await post('/missing', 'missing-1');
    const again = await post('/missing', 'missing-1');
    expect(first.status).toBe(404);
    expect(again.status).toBe(404);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
  });

  it('when another platform uses the same key, then it is its own request', async () => {
    const mine = await post('/things', 'shared-1', { a: 1 });
    const response = await fetch(url + '/things', {
      method: 'POST',
      headers: {
        authorization: bearer({ ...CLAIMS, platformId: 'plat_another0123456789ab' }),
        'content-type': 'application/json',
        'idempotency-key': 'shared-1',
      },
      body: JSON.stringify({ a: 9 }),
    });
    expect(response.status).toBe(201);
    expect(response.headers.get('idempotent-replayed')).toBeNull();
    expect(((await response.json()) as { data: { id: string } }).data.id).not.toBe(mine.body.data.id);
  });

  it('when 24 hours have passed, then the key may be used for a new request', async () => {
    const first = await post('/things', 'old-1', { a: 1 });
    clock.advance(24 * 3600 * 1000);
    const later = await post('/things', 'old-1', { a: 5 });
    expect(later.status).toBe(201);
    expect(later.body.data.id).not.toBe(first.body.data.id);
  });
  it('when a write is answered, then its answer committed in the transaction of its effect', async () => {
    const first = await post('/things', 'xmin-1', { x: 1 });
    expect(first.status).toBe(201);
    // xmin names the transaction that wrote a row: the key's answer and the thing share it, so no
    // crash can leave one without the other.
    const { rows } = await db.query<{ thing: string; key: string; status: number }>(
      `SELECT t.xmin::text AS thing, k.xmin::text AS key, k.response_status AS status
         FROM things t, idempotency_keys k WHERE t.id = $1 AND k.idempotency_key = 'xmin-1'`,
      [first.body.data.id],
    );
    expect(rows).toEqual([{ thing: rows[0]?.key, key: expect.any(String), status: 201 }]);
  });

  it('when a route reads its write back before answering, then it sees it, and a retry gets the answer', async () => {
    const before = await things();
    const first = await post('/things-read-back', 'read-back-1', { b: 1 });
    expect(first.status).toBe(201);
    expect(first.body.data.id).toMatch(/^thing_/);
    const again = await post('/things-read-back', 'read-back-1', { b: 1 });
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect(again.body).toEqual(first.body);
    expect((await things()) - before).toBe(1);
  });

  it('when a route waits on other work between its write and its answer, then the write commits and a retry gets the answer', async () => {
    const before = await things();
    const first = await post('/things-then-wait', 'wait-1', { w: 1 });
    expect(first.status).toBe(201);
    const again = await post('/things-then-wait', 'wait-1', { w: 1 });
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
    expect((await things()) - before).toBe(1);
  });

  it('when a route reads back a write whose commit is still under way, then it waits for the commit and sees it', async () => {
    const first = await post('/slow-commit-read-back', 'slow-1', {});
    expect(first.status).toBe(201);
    expect(first.body.data.found).toBe(true);
    const again = await post('/slow-commit-read-back', 'slow-1', {});
    expect(again.body).toEqual(first.body);
  });

  it('when a route writes in two transactions, then both commit once and a retry gets the answer', async () => {
    const before = await things();
    const first = await post('/two-things', 'two-1', { t: 2 });
    expect(first.status).toBe(201);
    const again = await post('/two-things', 'two-1', { t: 2 });
    expect(again.body).toEqual(first.body);
    expect((await things()) - before).toBe(2);
  });

  it("when the write fails at its commit, then the answer is a 503 to retry, never the route's 201, and nothing is kept", async () => {
    const failed = await post('/labels', 'label-1', { label: 'twice' });
    expect(failed.status).toBe(503);
    expect(failed.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(failed.headers.get('retry-after')).toBe('1');
    expect(failed.headers.get('location')).toBeNull();
    const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM labels');
    expect(rows[0]?.n).toBe(0);
    const again = await post('/labels', 'label-1', { label: 'twice' });
    expect(again.status).toBe(503);
    expect(again.headers.get('idempotent-replayed')).toBeNull();
  });

  if (engine === 'postgres') {
    it('when the process is killed after its write and before its answer, then a retry on another process carries the write out once and answers it', async () => {
      const before = await things();
      const dying = await startDyingProcess(database?.url ?? '');
      await expect(post('/dying-things', 'killed-1', { k: 1 }, dying.url)).rejects.toThrow();
      expect(await dying.exit).toBe('SIGKILL');
      // This process has the same route, healthy: the write had not committed, so it runs now.
      const retry = await post('/dying-things', 'killed-1', { k: 1 });
      expect(retry.status).toBe(201);
      expect(retry.headers.get('idempotent-replayed')).toBeNull();
      const replay = await post('/dying-things', 'killed-1', { k: 1 });
      expect(replay.body).toEqual(retry.body);
      expect((await things()) - before).toBe(1);
    });

    it('when the process is killed between a committed write and its final answer, then a retry gets the provisional answer it gave, and nothing runs twice', async () => {
      const before = await things();
      const dying = await startDyingProcess(database?.url ?? '');
      await expect(post('/dying-after-provisional', 'provisional-1', { p: 1 }, dying.url)).rejects.toThrow();
      expect(await dying.exit).toBe('SIGKILL');
      const retry = await post('/dying-after-provisional', 'provisional-1', { p: 1 });
      expect(retry.status).toBe(201);
      expect(retry.headers.get('idempotent-replayed')).toBe('true');
      expect(retry.body.data).toEqual({ id: expect.stringMatching(/^thing_prov_/), evaluation: 'pending' });
      expect((await things()) - before).toBe(1);
    });
  }
});

/**
 * Another process serving POST /dying-things on the same database from the compiled packages (make
 * build): it writes a thing in a transaction and is killed (SIGKILL) before it answers.
 */
async function startDyingProcess(
  dbUrl: string,
): Promise<{ url: string; exit: Promise<NodeJS.Signals | null> }> {
  const dist = (name: string) => JSON.stringify(path.join(ROOT, 'packages', name, 'dist', 'index.js'));
  const script = `
    const { createService, provisionalAnswer } = require(${dist('service-kit')});
    const { createDatabase } = require(${dist('storage')});
    const { createLogger } = require(${dist('logger')});
    (async () => {
      const db = await createDatabase({ url: process.env.DB_URL });
      const service = createService({
        name: 'dying',
        logger: createLogger('dying', { level: 'silent' }),
        internalJwtSecret: process.env.SECRET,
        idempotency: { db },
        routes: (router) => {
          // Stored, then killed while it waits on other work, with a provisional answer given.
          router.post('/dying-after-provisional', async (req, res) => {
            const id = 'thing_prov_' + Date.now();
            await db.transaction((tx) => tx.query('INSERT INTO things (id, body) VALUES ($1, $2)', [id, req.body]));
            provisionalAnswer(res, 201, { data: { id, evaluation: 'pending' } });
            await new Promise((resolve) => setTimeout(resolve, 200));
            process.kill(process.pid, 'SIGKILL');
          });
          router.post('/dying-things', async (req) => {
            await db.transaction((tx) =>
              tx.query('INSERT INTO things (id, body) VALUES ($1, $2)', ['thing_dead_' + Date.now(), req.body]),
            );
            process.kill(process.pid, 'SIGKILL');
          });
        },
      });
      const { url } = await service.listen(0, '127.0.0.1');
      process.stdout.write(url + '\\n');
    })();`;
  const child = spawn(process.execPath, ['-e', script], {
    env: { PATH: process.env.PATH, DB_URL: dbUrl, SECRET },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  const exit = new Promise<NodeJS.Signals | null>((resolve) =>
    child.once('exit', (_code, signal) => resolve(signal)),
  );
  const url = await new Promise<string>((resolve, reject) => {
    let out = '';
    const timer = setTimeout(() => reject(new Error('the dying process did not start in 20 s')), 20_000);
    child.stdout?.on('data', (chunk: Buffer) => {
      out += chunk.toString();
      const line = out.split('\n')[0];
      if (out.includes('\n') && line !== undefined) {
        clearTimeout(timer);
        resolve(line.trim());
      }
    });
    child.once('exit', () => reject(new Error('the dying process exited before listening')));
  });
  return { url, exit };
}
