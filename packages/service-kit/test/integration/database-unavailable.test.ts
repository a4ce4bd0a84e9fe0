import request from 'supertest';
import { createDatabase, type Database } from '@svc/storage';
import { createService } from '../../src';
import { bearer, capturingLogger, SECRET } from '../unit/service.fixture';

let db: Database;

beforeAll(async () => {
  // A PostgreSQL URL where nothing listens: every connect is refused, as during a restart.
  db = await createDatabase({ url: 'postgres://postgres@127.0.0.1:1/postgres' });
});

afterAll(async () => {
  await db.close();
});

describe('createService on a database that is down', () => {
  it('when a request needs the database, then it answers 503 SERVICE_UNAVAILABLE with Retry-After, and /readyz is 503', async () => {
    const { logger } = capturingLogger();
    const app = createService({
      name: 'db-down-test',
      logger,
      internalJwtSecret: SECRET,
      readiness: [{ name: 'database', check: () => db.ping() }],
      routes: (router) => {
        router.get('/claims', async (_req, res) => {
          const { rows } = await db.query('SELECT 1 AS one');
          res.json({ data: rows });
        });
      },
    }).app;

    const res = await request(app).get('/claims').set('Authorization', bearer());
    const ready = await request(app).get('/readyz');

    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(ready.status).toBe(503);
    expect(ready.body.checks.database).toMatch(/ECONNREFUSED|connect/);
  });
});
