import request from 'supertest';
import { z } from 'zod';
import { createService, parseBody, parseParams, parseQuery } from '../../src';
import { bearer, capturingLogger, SECRET } from './service.fixture';

const createClaim = z.object({
  name: z.string().min(1),
  tier: z.enum(['SILVER', 'GOLD']),
  referenceImages: z.array(z.object({ url: z.url() })).max(5),
});
const listQuery = z.object({
  limit: z.coerce.number().int().min(1).max(100).default(20),
  offset: z.coerce.number().int().min(0).default(0),
});
const claimPath = z.object({ id: z.string().regex(/^claim_[0-9A-Za-z]{16,64}$/) });

const { app } = createService({
  name: 'parse-test',
  logger: capturingLogger().logger,
  internalJwtSecret: SECRET,
  routes: (router) => {
    router.post('/claims', (req, res) => {
      res.status(201).json({ data: parseBody(createClaim, req) });
    });
    router.get('/claims', (req, res) => {
      res.json({ meta: parseQuery(listQuery, req) });
    });
    router.get('/claims/:id', (req, res) => {
      res.json({ data: parseParams(claimPath, req) });
    });
  },
});

interface ErrorBody {
  error: { code: string; message: string; details: { fields: { field: string; message: string }[] } };
}

function fieldsOf(body: unknown): string[] {
  return (body as ErrorBody).error.details.fields.map((f) => f.field);
}

describe('parseBody, parseQuery, parseParams', () => {
  it('when the body is valid, then the parsed value (unknown fields dropped) reaches the handler', async () => {
    const res = await request(app)
      .post('/claims')
      .set('Authorization', bearer())
      .send({
        name: 'Ada',
        tier: 'GOLD',
        referenceImages: [{ url: 'https://img.example/a.png' }],
        extra: true,
      });

    expect(res.status).toBe(201);
    expect(res.body).toEqual({
      data: { name: 'Ada', tier: 'GOLD', referenceImages: [{ url: 'https://img.example/a.png' }] },
    });
  });

  it('when several body fields are bad, then 400 VALIDATION_ERROR whose details name each of them', async () => {
    const res = await request(app)
      .post('/claims')
      .set('Authorization', bearer())
      .send({
        name: '',
        tier: 'PLATINUM',
        referenceImages: [{ url: 'https://ok.example/x.png' }, { url: 'nope' }],
      });

    expect(res.status).toBe(400);
    expect((res.body as ErrorBody).error.code).toBe('VALIDATION_ERROR');
    expect(fieldsOf(res.body).sort()).toEqual(['name', 'referenceImages.1.url', 'tier']);
  });

  it('when a required body field is missing, then it is named', async () => {
    const res = await request(app)
      .post('/claims')
      .set('Authorization', bearer())
      .send({ name: 'Ada', tier: 'GOLD' });

    expect(res.status).toBe(400);
    expect(fieldsOf(res.body)).toEqual(['referenceImages']);
  });

  it('when there is no body at all, then 400 VALIDATION_ERROR rather than a crash', async () => {
    const res = await request(app).post('/claims').set('Authorization', bearer());

    expect(res.status).toBe(400);
    expect((res.body as ErrorBody).error.code).toBe('VALIDATION_ERROR');
    expect(fieldsOf(res.body)).toEqual(['(body)']);
  });

  it('when the body is not JSON, then 415 VALIDATION_ERROR naming (body)', async () => {
    const res = await request(app)
      .post('/claims')
      .set('Authorization', bearer())
      .set('Content-Type', 'text/plain')
      .send('hello');

    expect(res.status).toBe(415);
    expect((res.body as ErrorBody).error.code).toBe('VALIDATION_ERROR');
    expect(fieldsOf(res.body)).toEqual(['(body)']);
  });

  it('when the JSON body is an array instead of an object, then 400 VALIDATION_ERROR', async () => {
    const res = await request(app).post('/claims').set('Authorization', bearer()).send([1, 2]);

    expect(res.status).toBe(400);
    expect((res.body as ErrorBody).error.code).toBe('VALIDATION_ERROR');
  });

  it('when query values are valid strings, then they are coerced and defaults applied', async () => {
    const res = await request(app).get('/claims?limit=5').set('Authorization', bearer());

    expect(res.status).toBe(200);
    expect(res.body).toEqual({ meta: { limit: 5, offset: 0 } });
  });

  it('when query values are out of range, then 400 VALIDATION_ERROR naming query.limit and query.offset', async () => {
    const res = await request(app).get('/claims?limit=500&offset=-1').set('Authorization', bearer());

    expect(res.status).toBe(400);
    expect(fieldsOf(res.body).sort()).toEqual(['query.limit', 'query.offset']);
  });

  it('when a path parameter is malformed, then 400 VALIDATION_ERROR naming path.id', async () => {
    const res = await request(app).get('/claims/not-an-id').set('Authorization', bearer());

    expect(res.status).toBe(400);
    expect(fieldsOf(res.body)).toEqual(['path.id']);
  });
});
