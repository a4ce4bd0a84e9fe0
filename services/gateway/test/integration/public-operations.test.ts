import { authOf, createService, type Service } from '@svc/service-kit';
import { createLogger } from '@svc/logger';
import type { Request, Response } from 'express';
import { ECHO_ROUTES, JWT_SECRET, startHarness, type Harness } from '../fixtures/gateway-harness';

// Contracts §16 (#31): a third party checks a credential with the deployment's published keys and
// status list, without an API key. Operations another service serves to anyone (`auth: 'public'`)
// are forwarded without a key and counted against no budget; the rest of the API still needs one.
let h: Harness;
let owner: Service;
let ownerUrl: string;
const seen: { platformId: string; path: string }[] = [];

beforeAll(async () => {
  owner = createService({
    name: 'licensing',
    logger: createLogger('licensing', { level: 'silent' }),
    internalJwtSecret: JWT_SECRET,
    routes: (router) => {
      router.get('/.well-known/jwks.json', (req: Request, res: Response) => {
        seen.push({ platformId: authOf(req).platformId, path: req.path });
        res.set('cache-control', 'public, max-age=300').json({ keys: [{ kty: 'OKP', kid: 'k1' }] });
      });
      router.get('/v1/svc/status-lists/:id', (req: Request, res: Response) => {
        seen.push({ platformId: authOf(req).platformId, path: req.path });
        if (req.params.id !== '1') {
          res.status(404).json({ error: { code: 'NOT_FOUND', message: 'No status list' } });
          return;
        }
        res
          .type('application/statuslist+jwt')
          .set('cache-control', 'public, max-age=30')
          .send('eyJ.list.jwt');
      });
      router.get('/v1/svc/licenses/:id/credential', (_req: Request, res: Response) => {
        res.json({ data: { credential: 'secret' } });
      });
    },
  });
  ownerUrl = (await owner.listen(0, '127.0.0.1')).url;
  h = await startHarness({
    routes: [
      ...ECHO_ROUTES,
      { id: 'jwks', method: 'GET', path: '/.well-known/jwks.json', service: 'licensing', auth: 'public' },
      {
        id: 'statusList',
        method: 'GET',
        path: '/v1/svc/status-lists/:id',
        service: 'licensing',
        auth: 'public',
      },
      { id: 'credential', method: 'GET', path: '/v1/svc/licenses/:id/credential', service: 'licensing' },
    ],
    serviceUrls: { LICENSING_URL: ownerUrl },
  });
});
afterAll(async () => {
  await h.stop();
  await owner.stop();
});

describe("another service's public operations", () => {
  it('when anyone asks for the signing keys or a status list without a key, then the owner answers through the gateway with its content type and caching, and no budget is counted', async () => {
    const jwks = await fetch(`${h.url}/.well-known/jwks.json`);
    expect(jwks.status).toBe(200);
    expect(jwks.headers.get('cache-control')).toBe('public, max-age=300');
    expect(jwks.headers.get('x-ratelimit-limit')).toBeNull();
    expect(await jwks.json()).toEqual({ keys: [{ kty: 'OKP', kid: 'k1' }] });

    const list = await fetch(`${h.url}/v1/svc/status-lists/1`);
    expect(list.status).toBe(200);
    expect(list.headers.get('content-type')).toMatch(/^application\/statuslist\+jwt/);
    expect(list.headers.get('cache-control')).toBe('public, max-age=30');
    expect(await list.text()).toBe('eyJ.list.jwt');
    // The owner learns the call is anonymous: no platform's identity is lent to it.
    expect(seen.map((s) => s.platformId)).toEqual(['public', 'public']);

    const unknown = await fetch(`${h.url}/v1/svc/status-lists/9`);
    expect(unknown.status).toBe(404);
  });

  it('when the same paths are written to, or a keyed operation of the same service is called without a key, then they are refused as before', async () => {
    const post = await fetch(`${h.url}/v1/svc/status-lists/1`, { method: 'POST' });
    expect(post.status).toBe(401);
    const credential = await fetch(`${h.url}/v1/svc/licenses/lic_1/credential`);
    expect(credential.status).toBe(401);
    expect(seen.every((s) => s.path !== '/v1/svc/licenses/lic_1/credential')).toBe(true);
  });
});
