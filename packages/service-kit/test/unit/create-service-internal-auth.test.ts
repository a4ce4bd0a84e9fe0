import request from 'supertest';
import { ManualClock } from '@svc/clock';
import { authOf, createService, signInternalToken } from '../../src';
import { bearer, capturingLogger, CLAIMS, SECRET } from './service.fixture';

const clock = new ManualClock('2026-03-01T12:00:00.000Z');

function service(requireInternalAuth?: boolean) {
  return createService({
    name: 'auth-test',
    logger: capturingLogger().logger,
    internalJwtSecret: SECRET,
    clock,
    ...(requireInternalAuth === undefined ? {} : { requireInternalAuth }),
    routes: (router) => {
      router.get('/me', (req, res) => {
        res.json(authOf(req));
      });
    },
  });
}

const UNAUTHORIZED = { error: { code: 'UNAUTHORIZED', message: expect.any(String) as string } };

describe('createService: internal auth', () => {
  const { app } = service();

  it('when a valid internal token is sent, then the route runs and authOf gives its claims', async () => {
    const token = signInternalToken(SECRET, CLAIMS, { now: clock.now() });

    const res = await request(app).get('/me').set('Authorization', `Bearer ${token}`);

    expect(res.status).toBe(200);
    expect(res.body).toEqual(CLAIMS);
  });

  it('when no Authorization header is sent, then 401 UNAUTHORIZED with the error body', async () => {
    const res = await request(app).get('/me');

    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });

  it.each([
    ['a Basic scheme', 'Basic dXNlcjpwYXNz'],
    ['a bare token without Bearer', signInternalToken(SECRET, CLAIMS, { now: clock.now() })],
    ['garbage after Bearer', 'Bearer not.a.jwt'],
    ['a token signed with another secret', bearer(CLAIMS, 'another-secret')],
  ])('when the header carries %s, then 401 UNAUTHORIZED', async (_why, header) => {
    const res = await request(app).get('/me').set('Authorization', header);

    expect(res.status).toBe(401);
    expect(res.body).toEqual(UNAUTHORIZED);
  });

  it('when the token has expired by the service clock, then 401 UNAUTHORIZED', async () => {
    const token = signInternalToken(SECRET, CLAIMS, { now: new Date(clock.now().getTime() - 600_000) });

    const res = await request(app).get('/me').set('Authorization', `Bearer ${token}`);

    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: { code: 'UNAUTHORIZED', message: 'Internal token expired' } });
  });

  it('when an unknown route is asked without a token, then 401 comes before 404 so routes are not revealed', async () => {
    const res = await request(app).get('/secret-admin-thing');

    expect(res.status).toBe(401);
  });

  it('when internal auth is off, then routes run without a token and authOf throws UNAUTHORIZED', async () => {
    const res = await request(service(false).app).get('/me');

    expect(res.status).toBe(401);
    expect(res.body).toEqual({
      error: { code: 'UNAUTHORIZED', message: 'No internal token on this request' },
    });
  });
});
