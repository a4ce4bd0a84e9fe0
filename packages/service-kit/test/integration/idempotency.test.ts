import type { Request, Response } from 'express';
import { ManualClock } from '@svc/clock';
import { createLogger } from '@svc/logger';
import { createDatabase, runMigrations, type Database } from '@svc/storage';
import { freshPostgresDatabase, sleep } from '@svc/test-kit';
import { createService, idempotencyMigrations, IDEMPOTENCY_IN_FLIGHT_MS, type Service } from '../../src';
import { bearer, CLAIMS, SECRET } from '../unit/service.fixture';

let database: { url: string; drop(): Promise<void> };
let db: Database;
let service: Service;
let url: string;
const clock = new ManualClock('2026-11-22T10:00:00.000Z');

beforeAll(async () => {
  database = await freshPostgresDatabase('idempotency');
  db = await createDatabase({ url: database.url });
  await runMigrations(db, [
    idempotencyMigrations,
    {
      namespace: 'things',
      migrations: [
        { version: 1, name: 'things', sql: 'CREATE TABLE things (id text PRIMARY KEY, body jsonb)' },
      ],
    },
  ]);
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
  await database.drop();
});

async function post(path: string, key: string, body: unknown = {}) {
  const response = await fetch(url + path, {
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

describe('Idempotency-Key in the owning service', () => {
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
});
