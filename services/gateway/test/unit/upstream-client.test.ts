import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { createLogger } from '@svc/logger';
import { UpstreamClient } from '../../src/domain/upstream.client';

// What a platform gets when something between the gateway and a service answers for it: a load
// balancer whose replica died mid-request, an ingress with no ready pod (issue #34).

let server: Server;
let answer: (res: import('node:http').ServerResponse) => void;
let upstreams: UpstreamClient;

beforeAll(async () => {
  server = createServer((_req, res) => answer(res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});

// A client per test: three unavailable answers in a row open its circuit.
beforeEach(() => {
  const { port } = server.address() as AddressInfo;
  upstreams = new UpstreamClient({
    serviceUrls: { billing: `http://127.0.0.1:${port}` },
    internalJwtSecret: 'x'.repeat(32),
    logger: createLogger('gateway', { level: 'silent' }),
    registry: new Registry(),
  });
});

afterEach(() => upstreams.close());

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
});

const claims = { platformId: 'plat_1', environment: 'sandbox', keyId: 'key_1', plan: 'basic' } as const;
const forward = () =>
  upstreams.forward('billing', claims, { method: 'POST', path: '/usage', requestId: 'req-1', body: '{}' });

describe('the gateway forwarding to a service behind a load balancer', () => {
  it.each([502, 503, 504])(
    'when a %i comes back as an HTML page, then the platform gets 503 SERVICE_UNAVAILABLE with Retry-After, in our error shape',
    async (status) => {
      answer = (res) => {
        res.writeHead(status, { 'content-type': 'text/html' });
        res.end('<html><body><h1>No server is available to handle this request.</h1></body></html>');
      };
      await expect(forward()).rejects.toMatchObject({
        code: 'SERVICE_UNAVAILABLE',
        status: 503,
        message: 'The billing service is unavailable',
        headers: { 'Retry-After': '1' },
      });
    },
  );

  it('when the service itself answers 503 with its JSON error, then that answer is forwarded, with Retry-After', async () => {
    const body = {
      error: { code: 'SERVICE_UNAVAILABLE', message: 'A dependency of this service is unavailable' },
    };
    answer = (res) => {
      res.writeHead(503, { 'content-type': 'application/json; charset=utf-8' });
      res.end(JSON.stringify(body));
    };
    const response = await forward();
    expect(response.status).toBe(503);
    expect(response.headers['retry-after']).toBe('1');
    expect(JSON.parse(response.body.toString('utf8'))).toEqual(body);
  });
});
