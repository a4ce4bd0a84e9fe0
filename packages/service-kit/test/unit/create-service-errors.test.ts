import request from 'supertest';
import { z } from 'zod';
import { AppError, errors } from '@svc/errors';
import { createService } from '../../src';
import { bearer, capturingLogger, SECRET } from './service.fixture';

function service() {
  const { logger, lines } = capturingLogger();
  const svc = createService({
    name: 'errors-test',
    logger,
    internalJwtSecret: SECRET,
    routes: (router) => {
      router.post('/echo', (req, res) => {
        res.json({ received: req.body as unknown });
      });
      router.get('/limited', () => {
        throw new AppError('RATE_LIMITED', 'Too many requests', {
          headers: { 'Retry-After': '42' },
          details: { limit: 60, remaining: 0, retryAfter: 42 },
        });
      });
      router.get('/async-missing', async () => {
        await Promise.resolve();
        throw errors.notFound('Claim', 'claim_123');
      });
      router.get('/zod', () => {
        z.object({ name: z.string(), count: z.number() }).parse({ name: 1 });
      });
      router.get('/boom', async () => {
        await Promise.resolve();
        throw new Error('db password is hunter2');
      });
      router.get('/internal', () => {
        throw errors.internal(new Error('invariant broken'));
      });
    },
  });
  return { app: svc.app, lines };
}

describe('createService: errors', () => {
  it('when the JSON body is malformed, then 400 VALIDATION_ERROR "Malformed JSON body"', async () => {
    const { app } = service();

    const res = await request(app)
      .post('/echo')
      .set('Authorization', bearer())
      .set('Content-Type', 'application/json')
      .send('{"name": "Ada",');

    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: { code: 'VALIDATION_ERROR', message: 'Malformed JSON body' } });
  });

  it('when the JSON body is over 1 MB, then 413 VALIDATION_ERROR naming the 1 MB limit', async () => {
    const { app } = service();
    const big = JSON.stringify({ blob: 'x'.repeat(1024 * 1024) });

    const res = await request(app)
      .post('/echo')
      .set('Authorization', bearer())
      .set('Content-Type', 'application/json')
      .send(big);

    expect(res.status).toBe(413);
    expect(res.body).toEqual({
      error: { code: 'VALIDATION_ERROR', message: 'Request body is larger than the 1 MB limit' },
    });
  });

  it('when the JSON body is just under 1 MB, then it is accepted', async () => {
    const { app } = service();
    const fits = JSON.stringify({ blob: 'x'.repeat(1024 * 1024 - 20) });

    const res = await request(app)
      .post('/echo')
      .set('Authorization', bearer())
      .set('Content-Type', 'application/json')
      .send(fits);

    expect(res.status).toBe(200);
  });

  it('when a handler throws an AppError, then its status, headers and body are sent', async () => {
    const { app } = service();

    const res = await request(app).get('/limited').set('Authorization', bearer());

    expect(res.status).toBe(429);
    expect(res.headers['retry-after']).toBe('42');
    expect(res.body).toEqual({
      error: {
        code: 'RATE_LIMITED',
        message: 'Too many requests',
        details: { limit: 60, remaining: 0, retryAfter: 42 },
      },
    });
  });

  it('when an async handler rejects with an AppError, then it reaches the error handler', async () => {
    const { app } = service();

    const res = await request(app).get('/async-missing').set('Authorization', bearer());

    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { code: 'NOT_FOUND', message: 'Claim claim_123 not found' } });
  });

  it('when a ZodError escapes a handler, then 400 VALIDATION_ERROR naming each bad field', async () => {
    const { app } = service();

    const res = await request(app).get('/zod').set('Authorization', bearer());

    expect(res.status).toBe(400);
    expect(res.body).toMatchObject({ error: { code: 'VALIDATION_ERROR' } });
    const fields = (res.body as { error: { details: { fields: { field: string }[] } } }).error.details.fields;
    expect(fields.map((f) => f.field).sort()).toEqual(['count', 'name']);
  });

  it('when a handler fails unexpectedly, then 500 INTERNAL with the request id, no message or stack leaked, and the stack logged', async () => {
    const { app, lines } = service();

    const res = await request(app).get('/boom').set('Authorization', bearer()).set('X-Request-Id', 'boom-1');

    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      error: { code: 'INTERNAL', message: 'Internal error', details: { requestId: 'boom-1' } },
    });
    expect(res.text).not.toContain('hunter2');
    expect(res.text).not.toContain('at ');
    const logged = lines.find((line) => line.level === 50);
    const err = (logged?.args[0] as { err?: Error } | undefined)?.err;
    expect(err?.stack).toContain('hunter2');
  });

  it('when a handler throws an INTERNAL AppError, then the body carries the request id too', async () => {
    const { app } = service();

    const res = await request(app)
      .get('/internal')
      .set('Authorization', bearer())
      .set('X-Request-Id', 'int-1');

    expect(res.status).toBe(500);
    expect(res.body).toEqual({
      error: { code: 'INTERNAL', message: 'Internal error', details: { requestId: 'int-1' } },
    });
  });

  it('when no route matches, then 404 NOT_FOUND error body', async () => {
    const { app } = service();

    const res = await request(app).delete('/nothing/here').set('Authorization', bearer());

    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: { code: 'NOT_FOUND', message: 'No route for DELETE /nothing/here' } });
  });
});
