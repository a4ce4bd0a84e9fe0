import { generateApiKey } from '../../src';
import { ECHO_ROUTES, startEchoService, startHarness, type Harness } from '../fixtures/gateway-harness';

let h: Harness;
let echo: Awaited<ReturnType<typeof startEchoService>>;
const bootstrapKey = generateApiKey('sandbox');

beforeAll(async () => {
  echo = await startEchoService();
  h = await startHarness({ routes: ECHO_ROUTES, serviceUrls: { REGISTRY_URL: echo.url }, bootstrapKey });
});
afterAll(async () => {
  await h.stop();
  await echo.service.stop();
});

function expectAuthError(res: { status: number; body: any }, code: string) {
  expect(res.status).toBe(401);
  expect(res.body.error.code).toBe(code);
  expect(typeof res.body.error.message).toBe('string');
  // Authentication errors carry a string in details (spec, Errors).
  expect(typeof res.body.error.details).toBe('string');
}

describe('API key authentication', () => {
  it('when no key is sent, then 401 UNAUTHORIZED with X-Request-Id', async () => {
    const res = await h.call(undefined, 'GET', '/v1/svc/echo/1');
    expectAuthError(res, 'UNAUTHORIZED');
    expect(res.headers.get('x-request-id')).toBeTruthy();
  });

  it('when the key is malformed or unknown, then 401 UNAUTHORIZED', async () => {
    expectAuthError(await h.call('not-a-key', 'GET', '/v1/svc/echo/1'), 'UNAUTHORIZED');
    expectAuthError(await h.call(generateApiKey('sandbox'), 'GET', '/v1/svc/echo/1'), 'UNAUTHORIZED');
  });

  it('when a valid key is sent, then the request reaches the service and X-Request-Id is echoed', async () => {
    const { key } = await h.platform();
    const res = await h.call(key, 'GET', '/v1/svc/echo/abc', undefined, { 'x-request-id': 'trace-123' });
    expect(res.status).toBe(200);
    expect(res.headers.get('x-request-id')).toBe('trace-123');
    expect(res.body.data.requestId).toBe('trace-123');
  });

  it('when a live key is used against the sandbox deployment, then 401 WRONG_ENVIRONMENT', async () => {
    const created = await h.admin('POST', '/admin/platforms', { name: 'L', plan: 'sandbox' });
    const live = await h.admin('POST', `/admin/platforms/${created.body.data.id}/keys`, {
      environment: 'production',
    });
    expectAuthError(await h.call(live.body.data.key, 'GET', '/v1/svc/echo/1'), 'WRONG_ENVIRONMENT');
    // Even a live key this deployment never issued is recognised by its prefix.
    expectAuthError(await h.call(generateApiKey('production'), 'GET', '/v1/svc/echo/1'), 'WRONG_ENVIRONMENT');
  });

  it('when a key is revoked, then it answers KEY_REVOKED at once and its successor works', async () => {
    const { key, keyId } = await h.platform();
    expect((await h.call(key, 'GET', '/v1/svc/echo/1')).status).toBe(200);
    const revoked = await h.admin('POST', `/admin/keys/${keyId}/revoke`);
    expectAuthError(await h.call(key, 'GET', '/v1/svc/echo/1'), 'KEY_REVOKED');
    expect((await h.call(revoked.body.data.key, 'GET', '/v1/svc/echo/1')).status).toBe(200);
  });

  it('when a key is rotated, then both work for 24 hours and the old one then answers KEY_EXPIRED', async () => {
    const { key, keyId } = await h.platform();
    const rotated = await h.admin('POST', `/admin/keys/${keyId}/rotate`);
    const successor = rotated.body.data.key;
    expect((await h.call(key, 'GET', '/v1/svc/echo/1')).status).toBe(200);
    expect((await h.call(successor, 'GET', '/v1/svc/echo/1')).status).toBe(200);

    h.clock.advance(24 * 3600 * 1000 - 1000);
    expect((await h.call(key, 'GET', '/v1/svc/echo/1')).status).toBe(200);

    h.clock.advance(1000);
    expectAuthError(await h.call(key, 'GET', '/v1/svc/echo/1'), 'KEY_EXPIRED');
    expect((await h.call(successor, 'GET', '/v1/svc/echo/1')).status).toBe(200);
  });

  it('when SVC_BOOTSTRAP_KEY is set, then a bootstrap platform on the sandbox plan owns it', async () => {
    const res = await h.call(bootstrapKey, 'GET', '/v1/svc/echo/1');
    expect(res.status).toBe(200);
    expect(res.body.data.claims).toMatchObject({ plan: 'sandbox', environment: 'sandbox' });
    expect(res.headers.get('x-ratelimit-limit')).toBe('60');
  });
});
