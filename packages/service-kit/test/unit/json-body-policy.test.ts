import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import request from 'supertest';
import { createService, MAX_JSON_DEPTH, parseParams } from '../../src';
import { z } from 'zod';
import { bearer, capturingLogger, SECRET } from './service.fixture';

function service() {
  return createService({
    name: 'body-policy-test',
    logger: capturingLogger().logger,
    internalJwtSecret: SECRET,
    routes: (router) => {
      router.post('/echo', (req, res) => {
        res.json({ received: req.body as unknown });
      });
      router.get('/things/:id', (req, res) => {
        res.json({ data: parseParams(z.object({ id: z.string() }), req) });
      });
    },
  });
}

interface ErrorBody {
  error: { code: string; message: string; details?: { fields: { field: string; message: string }[] } };
}

const nested = (depth: number): string => '['.repeat(depth) + ']'.repeat(depth);

describe('createService: the JSON body policy', () => {
  const { app } = service();

  it('when the body is nested deeper than 64 levels, then 400 VALIDATION_ERROR before it is parsed', async () => {
    const res = await request(app)
      .post('/echo')
      .set('Authorization', bearer())
      .set('Content-Type', 'application/json')
      .send(`{"a":${nested(10_000)}}`);

    expect(res.status).toBe(400);
    expect((res.body as ErrorBody).error.code).toBe('VALIDATION_ERROR');
    expect((res.body as ErrorBody).error.message).toContain(`${MAX_JSON_DEPTH} levels`);
  });

  it('when the body is exactly 64 levels deep, or brackets sit inside strings, then it is accepted', async () => {
    const deepest = await request(app)
      .post('/echo')
      .set('Authorization', bearer())
      .set('Content-Type', 'application/json')
      .send(`{"a":${nested(MAX_JSON_DEPTH - 1)}}`);
    const brackets = await request(app)
      .post('/echo')
      .set('Authorization', bearer())
      .send({ text: `"\\${'['.repeat(500)}` });

    expect(deepest.status).toBe(200);
    expect(brackets.status).toBe(200);
    expect(brackets.body).toEqual({ received: { text: `"\\${'['.repeat(500)}` } });
  });

  it.each([
    ['gzip with a plain body', 'gzip', Buffer.from('{"a":1}')],
    ['gzip with a real gzip body', 'gzip', gzipSync('{"a":1}')],
    ['br', 'br', Buffer.from('{"a":1}')],
  ])('when Content-Encoding is %s, then 415 VALIDATION_ERROR', async (_label, encoding, body) => {
    const res = await request(app)
      .post('/echo')
      .set('Authorization', bearer())
      .set('Content-Type', 'application/json')
      .set('Content-Encoding', encoding)
      .send(body);

    expect(res.status).toBe(415);
    expect((res.body as ErrorBody).error.code).toBe('VALIDATION_ERROR');
  });

  it.each([
    ['text/plain', '{"a":1}'],
    ['application/x-www-form-urlencoded', 'a=1'],
    ['application/json; charset=latin1', '{"a":1}'],
  ])('when the Content-Type is %s, then 415 VALIDATION_ERROR', async (type, body) => {
    const res = await request(app)
      .post('/echo')
      .set('Authorization', bearer())
      .set('Content-Type', type)
      .send(body);

    expect(res.status).toBe(415);
    expect((res.body as ErrorBody).error.details?.fields[0]?.field).toBe('(body)');
  });

  it('when a POST carries no body and no Content-Type, then the handler runs', async () => {
    const res = await request(app).post('/echo').set('Authorization', bearer());

    expect(res.status).toBe(200);
  });

  it('when a path parameter is not valid percent-encoding, then 400 VALIDATION_ERROR, not 500', async () => {
    for (const bad of ['%E0%A4%A', '%zz', '%']) {
      const res = await request(app).get(`/things/${bad}`).set('Authorization', bearer());

      expect(res.status).toBe(400);
      expect((res.body as ErrorBody).error.code).toBe('VALIDATION_ERROR');
    }
  });

  it('when node refuses the request itself (a NUL in a header), then the answer is still the error envelope', async () => {
    const svc = service();
    const { port } = await svc.listen(0, '127.0.0.1');
    try {
      const raw = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.write('GET /healthz HTTP/1.1\r\nHost: x\r\nX-Bad: a\u0000b\r\n\r\n');
        });
        let text = '';
        socket.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
        socket.on('end', () => resolve(text));
        socket.on('error', reject);
      });

      expect(raw).toMatch(/^HTTP\/1\.1 400 /);
      const body = JSON.parse(raw.slice(raw.indexOf('\r\n\r\n') + 4)) as ErrorBody;
      expect(body.error.code).toBe('VALIDATION_ERROR');
    } finally {
      await svc.stop(1000);
    }
  });
});
