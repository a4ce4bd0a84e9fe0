import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Registry } from 'prom-client';
import { createLogger } from '@svc/logger';
import { verifyInternalToken, type InternalClaims } from '@svc/service-kit';
import { UpstreamClient } from '../../src/domain/upstream.client';

// What a platform gets when something between the gateway and a service answers for it: a load
// balancer whose replica died mid-request, an ingress with no ready pod (issue #34).

const SECRET = 'x'.repeat(32);

let server: Server;
let answer: (res: import('node:http').ServerResponse) => void;
let upstreams: UpstreamClient;
// The internal token of each call the service received, in order.
let receivedTokens: string[];

beforeAll(async () => {
  server = createServer((req, res) => {
    receivedTokens.push((req.headers.authorization ?? '').replace(/^Bearer /, ''));
    answer(res);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
});

// A client per test: three unavailable answers in a row open its circuit.
beforeEach(() => {
  const { port } = server.address() as AddressInfo;
  receivedTokens = [];
  upstreams = new UpstreamClient({
    serviceUrls: { billing: `http://127.0.0.1:${port}` },
    internalJwtSecret: SECRET,
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

// Signing a token on every request is waste: the gateway reuses one per key (and the claims it
// signs) while it has at least 60 s of its 300 s to live. The clock is the machine's, so only Date is faked here:
// the loopback calls still run on real timers.
describe("the gateway's internal token, reused per key", () => {
  const MINTED_AT = Date.parse('2026-03-01T12:00:00.000Z');
  const RENEW_AFTER_MS = 240_000;

  const at = (msAfterMinting: number): Date => new Date(MINTED_AT + msAfterMinting);
  const forwardAs = async (caller: InternalClaims, msAfterMinting: number): Promise<string> => {
    jest.setSystemTime(at(msAfterMinting));
    await upstreams.forward('billing', caller, { method: 'GET', path: '/usage', requestId: 'req-1' });
    const token = receivedTokens.at(-1);
    if (token === undefined) throw new Error('The service received no call');
    return token;
  };

  beforeEach(() => {
    jest.useFakeTimers({
      now: MINTED_AT,
      doNotFake: [
        'hrtime',
        'nextTick',
        'performance',
        'queueMicrotask',
        'setImmediate',
        'clearImmediate',
        'setInterval',
        'clearInterval',
        'setTimeout',
        'clearTimeout',
      ],
    });
    answer = (res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{}');
    };
  });

  afterEach(() => jest.useRealTimers());

  it('when one key calls twice within 240 s, then the service receives the same token, naming that key', async () => {
    const first = await forwardAs(claims, 0);
    const second = await forwardAs(claims, RENEW_AFTER_MS - 1);

    expect(second).toBe(first);
    expect(verifyInternalToken(SECRET, second, at(RENEW_AFTER_MS - 1))).toEqual(claims);
  });

  it('when another key or another platform calls, then it gets its own token, and the first key keeps its own', async () => {
    const otherKey = { ...claims, keyId: 'key_2' };
    const otherPlatform = { ...claims, platformId: 'plat_2' };

    const first = await forwardAs(claims, 0);
    const ofOtherKey = await forwardAs(otherKey, 10_000);
    const ofOtherPlatform = await forwardAs(otherPlatform, 20_000);
    const firstAgain = await forwardAs(claims, 30_000);

    expect(verifyInternalToken(SECRET, ofOtherKey, at(10_000))).toEqual(otherKey);
    expect(verifyInternalToken(SECRET, ofOtherPlatform, at(20_000))).toEqual(otherPlatform);
    expect(firstAgain).toBe(first);
  });

  it('when 240 s have passed since the token was minted, then a fresh one is minted, valid for another 300 s', async () => {
    const first = await forwardAs(claims, 0);
    const renewed = await forwardAs(claims, RENEW_AFTER_MS);
    const reused = await forwardAs(claims, RENEW_AFTER_MS + 60_000);

    expect(renewed).not.toBe(first);
    expect(reused).toBe(renewed);
    // 299 s after the renewal the first token has long expired; the renewed one is still accepted.
    const later = at(RENEW_AFTER_MS + 299_000);
    expect(() => verifyInternalToken(SECRET, first, later)).toThrow('Internal token expired');
    expect(verifyInternalToken(SECRET, renewed, later)).toEqual(claims);
  });

  it("when a key's platform changes plan, then its next call carries the new plan, and that token is reused", async () => {
    const upgraded = { ...claims, plan: 'enterprise' } as const;

    await forwardAs(claims, 0);
    const afterUpgrade = await forwardAs(upgraded, 10_000);
    const nextCall = await forwardAs(upgraded, 20_000);

    expect(verifyInternalToken(SECRET, afterUpgrade, at(10_000))).toEqual(upgraded);
    expect(nextCall).toBe(afterUpgrade);
  });

  it('when 10,000 keys have tokens, then the next new key empties the cache and the others are minted again', async () => {
    answer = (res) => res.end();
    const first = await forwardAs(claims, 0);
    for (let n = 2; n <= 10_000; n += 500) {
      const batch = Array.from({ length: Math.min(500, 10_001 - n) }, (_, i) => `key_${n + i}`);
      await Promise.all(batch.map((keyId) => forwardAs({ ...claims, keyId }, 0)));
    }
    const whileFull = await forwardAs(claims, 1000);
    await forwardAs({ ...claims, keyId: 'key_10001' }, 1000);
    const afterEmptied = await forwardAs(claims, 2000);

    expect(whileFull).toBe(first);
    expect(afterEmptied).not.toBe(first);
    expect(verifyInternalToken(SECRET, afterEmptied, at(2000))).toEqual(claims);
  });
});
