import request from 'supertest';
import { z } from 'zod';
import { createService, respond } from '../../src';
import { bearer, capturingLogger, SECRET } from './service.fixture';

// Shaped as @svc/contracts declares its operations (defineOperation keeps these literal types).
const boxSchema = z.object({ id: z.string(), status: z.enum(['ACTIVE', 'PAUSED']), createdAt: z.string() });
const dataOf = <T extends z.ZodType>(schema: T) => z.object({ data: schema });
const getBox = {
  path: '/boxes/:id',
  responses: { 200: { description: 'The box', schema: dataOf(boxSchema) } },
};
const createBox = {
  path: '/boxes',
  responses: {
    201: { description: 'Created', schema: dataOf(boxSchema) },
    202: { description: 'Queued', schema: z.object({ queued: z.literal(true) }) },
    409: { description: 'Already there' },
  },
};

const box = { id: 'box_1', status: 'ACTIVE' as const, createdAt: '2026-11-30T12:00:00.000Z' };

// Types only, never called: a body or a status that drifts from the operation's contract does not
// compile, so `make check` (tsc over every test file) fails on it.
export function drifts(res: Parameters<typeof respond>[0]): void {
  respond(res, getBox, 200, { data: box });
  // @ts-expect-error a status the operation does not declare
  respond(res, getBox, 201, { data: box });
  // @ts-expect-error a field of the wrong type
  respond(res, getBox, 200, { data: { ...box, createdAt: new Date() } });
  // @ts-expect-error a value outside the enum
  respond(res, getBox, 200, { data: { ...box, status: 'DELETED' } });
  // @ts-expect-error a required field missing
  respond(res, getBox, 200, { data: { id: 'box_1', status: 'ACTIVE' } });
  // @ts-expect-error the envelope forgotten
  respond(res, getBox, 200, box);
  // Each declared status has its own body.
  respond(res, createBox, 202, { queued: true });
  // @ts-expect-error the body of another status
  respond(res, createBox, 202, { data: box });
  // A status declared without a schema answers no body.
  respond(res, createBox, 409, undefined);
}

const { app } = createService({
  name: 'respond-test',
  logger: capturingLogger().logger,
  internalJwtSecret: SECRET,
  routes: (router) => {
    router.get(getBox.path, (_req, res) => respond(res, getBox, 200, { data: box }));
    router.post(createBox.path, (req, res) => {
      if (req.query['queue'] === 'yes') respond(res, createBox, 202, { queued: true });
      else respond(res, createBox, 201, { data: box });
    });
  },
});

describe('respond', () => {
  it('answers the declared status with the body as JSON', async () => {
    const got = await request(app).get('/boxes/box_1').set('Authorization', bearer());
    expect(got.status).toBe(200);
    expect(got.headers['content-type']).toMatch(/^application\/json/);
    expect(got.body).toEqual({ data: box });
    expect(dataOf(boxSchema).safeParse(got.body).success).toBe(true);
  });

  it('answers whichever declared status the handler chose', async () => {
    expect((await request(app).post('/boxes').set('Authorization', bearer())).status).toBe(201);
    const queued = await request(app).post('/boxes?queue=yes').set('Authorization', bearer());
    expect(queued.status).toBe(202);
    expect(queued.body).toEqual({ queued: true });
  });
});
