import request from 'supertest';
import { AppError, errors } from '@svc/errors';
import { createService } from '../../src';
import { bearer, capturingLogger, SECRET } from './service.fixture';

function pgError(message: string, code?: string): Error {
  return Object.assign(new Error(message), code === undefined ? {} : { code });
}

function service(thrown: () => unknown) {
  const { logger } = capturingLogger();
  return createService({
    name: 'unavailable-test',
    logger,
    internalJwtSecret: SECRET,
    routes: (router) => {
      router.get('/work', async () => {
        await Promise.resolve();
        throw thrown();
      });
    },
  }).app;
}

describe('createService: a dependency that is down', () => {
  it.each([
    [
      'the database refuses connections',
      () => pgError('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED'),
    ],
    ['the connection was terminated mid-request', () => pgError('Connection terminated unexpectedly')],
    [
      'PostgreSQL is shutting down (57P01)',
      () => pgError('terminating connection due to administrator command', '57P01'),
    ],
    ['PostgreSQL is starting up (57P03)', () => pgError('the database system is starting up', '57P03')],
    ['the pool timed out waiting for a connection', () => pgError('timeout exceeded when trying to connect')],
    ['an INTERNAL error wraps a lost connection', () => errors.internal(pgError('Connection terminated'))],
  ])('when %s, then 503 SERVICE_UNAVAILABLE with Retry-After, never 500', async (_what, thrown) => {
    const res = await request(service(thrown)).get('/work').set('Authorization', bearer());

    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(JSON.stringify(res.body)).not.toMatch(/5432|ECONNREFUSED|terminat/);
  });

  it('when a SERVICE_UNAVAILABLE is raised without Retry-After, then the answer still carries one', async () => {
    const app = service(() => new AppError('SERVICE_UNAVAILABLE', 'Broker unavailable'));

    const res = await request(app).get('/work').set('Authorization', bearer());

    expect(res.status).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
  });

  it('when the raiser chose its own Retry-After, then that one is kept', async () => {
    const app = service(() => errors.unavailable('Detection is down', 7));

    const res = await request(app).get('/work').set('Authorization', bearer());

    expect(res.headers['retry-after']).toBe('7');
  });

  it('when the failure is a bug (a unique violation, a TypeError), then it stays 500 INTERNAL', async () => {
    const duplicate = await request(service(() => pgError('duplicate key value', '23505')))
      .get('/work')
      .set('Authorization', bearer());
    const bug = await request(service(() => new TypeError('x is undefined')))
      .get('/work')
      .set('Authorization', bearer());

    expect(duplicate.status).toBe(500);
    expect(bug.status).toBe(500);
    expect(bug.headers['retry-after']).toBeUndefined();
  });
});
