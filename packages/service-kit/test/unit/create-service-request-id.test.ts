import request from 'supertest';
import { errors } from '@svc/errors';
import { currentRequestContext } from '@svc/logger';
import { createService } from '../../src';
import { bearer, capturingLogger, SECRET } from './service.fixture';

function service() {
  return createService({
    name: 'request-id-test',
    logger: capturingLogger().logger,
    internalJwtSecret: SECRET,
    routes: (router) => {
      router.get('/things', (_req, res) => {
        res.json({ context: currentRequestContext() ?? null });
      });
      router.post('/things', (req, res) => {
        res.status(201).json({ context: currentRequestContext() ?? null, echoed: req.body as unknown });
      });
      router.get('/conflict', () => {
        throw errors.invalidState('Not now');
      });
    },
  });
}

describe('createService: request id', () => {
  const { app } = service();

  it('when the caller sends a sane X-Request-Id, then it is echoed and is the logging context of the handler', async () => {
    const res = await request(app)
      .get('/things')
      .set('X-Request-Id', 'abc.DEF_123-x')
      .set('Authorization', bearer());

    expect(res.status).toBe(200);
    expect(res.headers['x-request-id']).toBe('abc.DEF_123-x');
    expect(res.body).toEqual({
      context: { requestId: 'abc.DEF_123-x', platformId: 'plat_0123456789abcdefABCDEF' },
    });
  });

  it('when the request has a JSON body, then the handler still runs in the request context after parsing', async () => {
    const res = await request(app)
      .post('/things')
      .set('X-Request-Id', 'after-body-parse')
      .set('Authorization', bearer())
      .send({ a: 1 });

    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      context: { requestId: 'after-body-parse', platformId: 'plat_0123456789abcdefABCDEF' },
      echoed: { a: 1 },
    });
  });

  it('when internal auth is off and the body arrives in many chunks, then the handler still runs in the request context', async () => {
    const open = createService({
      name: 'no-auth',
      logger: capturingLogger().logger,
      internalJwtSecret: SECRET,
      requireInternalAuth: false,
      routes: (router) => {
        router.post('/things', (_req, res) => {
          res.json({ context: currentRequestContext() ?? null });
        });
      },
    });

    // Guards the AsyncLocalStorage context across body-parser's stream callbacks (a known way to lose it).
    const res = await request(open.app)
      .post('/things')
      .set('X-Request-Id', 'chunked')
      .send({ a: 'b'.repeat(200_000) });

    expect(res.body).toEqual({ context: { requestId: 'chunked' } });
  });

  it('when the caller sends no X-Request-Id, then one is generated and set on the response', async () => {
    const first = await request(app).get('/things').set('Authorization', bearer());
    const second = await request(app).get('/things').set('Authorization', bearer());

    expect(first.headers['x-request-id']).toMatch(/^[A-Za-z0-9]{20}$/);
    expect(second.headers['x-request-id']).not.toBe(first.headers['x-request-id']);
    expect((first.body as { context: { requestId: string } }).context.requestId).toBe(
      first.headers['x-request-id'],
    );
  });

  it.each([
    ['too long', 'a'.repeat(129)],
    ['with characters outside [A-Za-z0-9._-]', 'abc def<script>'],
  ])('when the X-Request-Id is %s, then a fresh one replaces it', async (_why, given) => {
    const res = await request(app).get('/things').set('X-Request-Id', given).set('Authorization', bearer());

    expect(res.headers['x-request-id']).not.toBe(given);
    expect(res.headers['x-request-id']).toMatch(/^[A-Za-z0-9]{20}$/);
  });

  it('when the X-Request-Id is exactly 128 characters, then it is kept', async () => {
    const given = 'b'.repeat(128);
    const res = await request(app).get('/things').set('X-Request-Id', given).set('Authorization', bearer());

    expect(res.headers['x-request-id']).toBe(given);
  });

  it('when the route is unknown, when auth fails and when a handler throws, then the response still carries the request id', async () => {
    const notFound = await request(app)
      .get('/nowhere')
      .set('X-Request-Id', 'id-404')
      .set('Authorization', bearer());
    const unauthorized = await request(app).get('/things').set('X-Request-Id', 'id-401');
    const conflict = await request(app)
      .get('/conflict')
      .set('X-Request-Id', 'id-409')
      .set('Authorization', bearer());
    const health = await request(app).get('/healthz').set('X-Request-Id', 'id-health');

    expect([notFound.status, notFound.headers['x-request-id']]).toEqual([404, 'id-404']);
    expect([unauthorized.status, unauthorized.headers['x-request-id']]).toEqual([401, 'id-401']);
    expect([conflict.status, conflict.headers['x-request-id']]).toEqual([409, 'id-409']);
    expect([health.status, health.headers['x-request-id']]).toEqual([200, 'id-health']);
  });

  it('when any response is sent, then it has no X-Powered-By header', async () => {
    const res = await request(app).get('/healthz');

    expect(res.headers['x-powered-by']).toBeUndefined();
  });
});
