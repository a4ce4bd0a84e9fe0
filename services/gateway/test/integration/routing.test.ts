import { createServer as createHttpServer } from 'node:http';
import { createServer, type Server } from 'node:net';
import { verifyInternalToken } from '@svc/service-kit';
import { generateApiKey } from '../../src';
import {
  ECHO_ROUTES,
  JWT_SECRET,
  startEchoService,
  startHarness,
  type Harness,
} from '../fixtures/gateway-harness';

let h: Harness;
let echo: Awaited<ReturnType<typeof startEchoService>>;
let hanging: Server;
let hangingPort: number;
// A service that keeps the bytes of each body it was sent, as they arrived.
const rawBodies: Buffer[] = [];
const raw = createHttpServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (chunk: Buffer) => chunks.push(chunk));
  req.on('end', () => {
    rawBodies.push(Buffer.concat(chunks));
    res.writeHead(201, { 'content-type': 'application/json' }).end('{"data":{"kept":true}}');
  });
});

beforeAll(async () => {
  echo = await startEchoService();
  // A "service" that accepts connections and never answers.
  hanging = createServer(() => undefined);
  await new Promise<void>((resolve) => hanging.listen(0, '127.0.0.1', () => resolve()));
  hangingPort = (hanging.address() as { port: number }).port;
  await new Promise<void>((resolve) => raw.listen(0, '127.0.0.1', () => resolve()));
  h = await startHarness({
    routes: [
      ...ECHO_ROUTES,
      { id: 'down', method: 'GET', path: '/v1/svc/down', service: 'detection' },
      { id: 'hang', method: 'GET', path: '/v1/svc/hang', service: 'licensing' },
      { id: 'raw', method: 'POST', path: '/v1/svc/raw', service: 'enforcement' },
    ],
    serviceUrls: {
      REGISTRY_URL: echo.url,
      DETECTION_URL: 'http://127.0.0.1:1',
      LICENSING_URL: `http://127.0.0.1:${hangingPort}`,
      ENFORCEMENT_URL: `http://127.0.0.1:${(raw.address() as { port: number }).port}`,
    },
  });
});
afterAll(async () => {
  await h.stop();
  await echo.service.stop();
  hanging.close();
  raw.close();
});

describe('routing to the owning service', () => {
  it('when a platform calls, then the service receives an internal JWT naming the caller', async () => {
    const { key, keyId, platformId } = await h.platform('basic', { domain: 'avatars.example' });
    const res = await h.call(key, 'GET', '/v1/svc/echo/xyz?limit=5');
    expect(res.status).toBe(200);
    expect(res.body.data.claims).toEqual({
      platformId,
      environment: 'sandbox',
      keyId,
      plan: 'basic',
      platformDomain: 'avatars.example',
      platformName: 'P basic',
    });
    expect(res.body.data.query).toEqual({ limit: '5' });
  });

  it('when the JWT is checked with the shared secret, then it verifies', () => {
    expect(() => verifyInternalToken('wrong-secret-wrong-secret-wrong-secret', 'x')).toThrow();
    expect(JWT_SECRET.length).toBeGreaterThanOrEqual(32);
  });

  it('when the path is unknown, then 404 NOT_FOUND after authentication', async () => {
    const { key } = await h.platform();
    const res = await h.call(key, 'GET', '/v1/svc/nothing-here');
    expect(res.status).toBe(404);
    expect(res.body.error.code).toBe('NOT_FOUND');
    expect(res.headers.get('x-ratelimit-limit')).toBe('60');
    expect((await h.call(undefined, 'GET', '/v1/svc/nothing-here')).status).toBe(401);
  });

  it('when the owning service is down, then 503 SERVICE_UNAVAILABLE within a second', async () => {
    const { key } = await h.platform('enterprise');
    const started = performance.now();
    const res = await h.call(key, 'GET', '/v1/svc/down');
    expect(performance.now() - started).toBeLessThan(1000);
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
    expect(res.headers.get('retry-after')).toBeTruthy();
  });

  it('when the owning service is not deployed, then 503 SERVICE_UNAVAILABLE', async () => {
    const { key } = await h.platform('enterprise');
    const res = await h.call(key, 'GET', '/v1/svc/nowhere');
    expect(res.status).toBe(503);
    expect(res.body.error.code).toBe('SERVICE_UNAVAILABLE');
  });

  it('when a live key calls a test helper on a production deployment, then 403 FORBIDDEN', async () => {
    const prod = await startHarness({
      environment: 'production',
      routes: ECHO_ROUTES,
      serviceUrls: { REGISTRY_URL: echo.url },
    });
    try {
      const { key } = await prod.platform('basic');
      expect(key).toMatch(/^svc_live_/);
      const res = await prod.call(key, 'POST', '/v1/svc/test-helpers/thing', {});
      expect(res.status).toBe(403);
      expect(res.body.error.code).toBe('FORBIDDEN');
      expect((await prod.call(generateApiKey('sandbox'), 'GET', '/v1/svc/echo/1')).body.error.code).toBe(
        'WRONG_ENVIRONMENT',
      );
    } finally {
      await prod.stop();
    }
  });

  it('when a JSON body is sent, then the service receives the very bytes the platform sent, not a re-serialisation', async () => {
    const { key } = await h.platform('enterprise');
    // Spacing, key order, an escaped character, a trailing zero and a newline: parsing and
    // serialising again would change every one of them.
    const body = '{ "b": 2,\n  "a": "caf\\u00e9",  "n": 1.50 }\n';
    const res = await h.call(key, 'POST', '/v1/svc/raw', body, {
      'content-type': 'application/json',
      'idempotency-key': 'raw-bytes-1',
    });
    expect(res.status).toBe(201);
    expect(res.body).toEqual({ data: { kept: true } });
    expect(rawBodies).toHaveLength(1);
    expect(rawBodies[0]!.toString('utf8')).toBe(body);
  });

  it('when the body is malformed JSON or over 1 MB, then 400 / 413 VALIDATION_ERROR and nothing is forwarded', async () => {
    const { key } = await h.platform('enterprise');
    const before = echo.calls();
    const malformed = await h.call(key, 'POST', '/v1/svc/things', '{"a":', {
      'content-type': 'application/json',
    });
    expect(malformed.status).toBe(400);
    expect(malformed.body.error.code).toBe('VALIDATION_ERROR');
    const big = await h.call(key, 'POST', '/v1/svc/things', JSON.stringify({ s: 'x'.repeat(1_100_000) }));
    expect(big.status).toBe(413);
    expect(big.body.error.code).toBe('VALIDATION_ERROR');
    expect(echo.calls()).toBe(before);
  });

  it('when the OpenAPI document is asked for, then it is 3.1 and documents the operator paths', async () => {
    const res = await fetch(`${h.url}/v1/svc/openapi.json`);
    expect(res.status).toBe(200);
    const doc = (await res.json()) as any;
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.paths['/admin/platforms'].post.requestBody).toBeDefined();
    expect(doc.paths['/admin/keys/{id}/rotate'].post).toBeDefined();
  });
});

describe('operator routes owned by a service', () => {
  it('when the operator calls one, then the service receives an operator token', async () => {
    const res = await h.admin('POST', '/admin/things/claim_1/verify', { tier: 'GOLD' });
    expect(res.status).toBe(200);
    expect(res.body.data.claims).toMatchObject({
      platformId: 'operator',
      role: 'operator',
      keyId: 'operator',
    });
    expect(res.body.data.received).toEqual({ tier: 'GOLD' });
  });

  it('when an API key or no operator token is used, then the operator route is out of reach', async () => {
    const { key } = await h.platform('enterprise');
    const withKey = await h.call(key, 'POST', '/admin/things/claim_1/verify', {});
    expect(withKey.status).toBe(401);
    expect(withKey.body.error.code).toBe('UNAUTHORIZED');
  });

  it('when the operator path is unknown, then 404', async () => {
    expect((await h.admin('POST', '/admin/nothing/here', {})).status).toBe(404);
  });
});
