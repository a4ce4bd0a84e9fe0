import { authOf, createService, type Service } from '@svc/service-kit';
import { createLogger } from '@svc/logger';
import type express from 'express';
import { JWT_SECRET, startHarness, type Harness } from '../fixtures/gateway-harness';

// Issue 20: the dashboard shows a new box's initial scan. The gateway asks enforcement's internal
// route with the session's tenant as the caller; enforcement answers the owner only (404 else).

let h: Harness;
let enforcement: Service;
let ownerOfBox = '';
const asked: Array<{ platformId: string; path: string }> = [];

beforeAll(async () => {
  enforcement = createService({
    name: 'fake-enforcement',
    logger: createLogger('fake-enforcement', { level: 'silent' }),
    internalJwtSecret: JWT_SECRET,
    routes: (router) => {
      router.get('/internal/boxes/:id/scan', (req: express.Request, res: express.Response) => {
        const { platformId } = authOf(req);
        asked.push({ platformId, path: req.path });
        if (req.params.id !== 'box_scanned000000000000' || platformId !== ownerOfBox) {
          res.status(404).json({ error: { code: 'NOT_FOUND', message: 'Box not found' } });
          return;
        }
        res.json({ data: { boxId: req.params.id, status: 'in_progress', avatarsScanned: 100 } });
      });
    },
  });
  const { url } = await enforcement.listen(0, '127.0.0.1');
  h = await startHarness({ serviceUrls: { ENFORCEMENT_URL: url } });
});
afterAll(async () => {
  await h.stop();
  await enforcement.stop();
});

let n = 0;
async function signUp(): Promise<{ cookie: string; platformId: string }> {
  n += 1;
  const res = await h.signUp({
    email: `scan${n}@example.com`,
    password: 'twelve chars or more',
    name: `Scan ${n}`,
    role: 'creator',
  });
  expect(res.status).toBe(200);
  const cookie = `svc_session=${/svc_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1]}`;
  return { cookie, platformId: res.body.data.account.platformId as string };
}

describe('GET /dashboard/api/boxes/:id/scan', () => {
  it("when the box's owner asks, then enforcement is asked as the owner's tenant and its answer relayed; another account gets 404", async () => {
    const owner = await signUp();
    const other = await signUp();
    ownerOfBox = owner.platformId;
    const path = '/dashboard/api/boxes/box_scanned000000000000/scan';

    const mine = await h.call(undefined, 'GET', path, undefined, { cookie: owner.cookie });
    expect(mine.status).toBe(200);
    expect(mine.body.data).toEqual({
      boxId: 'box_scanned000000000000',
      status: 'in_progress',
      avatarsScanned: 100,
    });
    expect(mine.headers.get('cache-control')).toBe('no-store');
    expect(asked.at(-1)).toEqual({
      platformId: owner.platformId,
      path: '/internal/boxes/box_scanned000000000000/scan',
    });

    const theirs = await h.call(undefined, 'GET', path, undefined, { cookie: other.cookie });
    expect(theirs.status).toBe(404);
    expect(theirs.body.error.code).toBe('NOT_FOUND');
    expect(asked.at(-1)?.platformId).toBe(other.platformId);
  });

  it('when nobody is signed in, or the id is malformed, then enforcement is not asked', async () => {
    const before = asked.length;
    const anonymous = await h.call(undefined, 'GET', '/dashboard/api/boxes/box_scanned000000000000/scan');
    expect(anonymous.status).toBe(401);
    const owner = await signUp();
    const bad = await h.call(undefined, 'GET', '/dashboard/api/boxes/%20%3C/scan', undefined, {
      cookie: owner.cookie,
    });
    expect(bad.status).toBe(400);
    expect(asked.length).toBe(before);
  });
});
