import { Registry } from 'prom-client';
import { createHttpClient, type HttpClient } from '../../src';
import { closedPort, rejectionOf, startDownstream, type Downstream } from './downstream.fixture';

const wait = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

function answering(status: number) {
  return (_req: unknown, res: { writeHead(s: number): void; end(body?: string): void }) => {
    res.writeHead(status);
    res.end('{}');
  };
}

describe('http client: circuit breaker', () => {
  let downstream: Downstream;
  let registry: Registry;
  let client: HttpClient;

  beforeEach(async () => {
    downstream = await startDownstream(answering(503));
    registry = new Registry();
    client = createHttpClient({
      target: 'registry',
      baseUrl: downstream.url,
      registry,
      breaker: { volumeThreshold: 3, errorThresholdPercentage: 50, resetTimeoutMs: 300 },
    });
  });

  afterEach(async () => {
    await client.close();
    await downstream.close();
  });

  async function openTheBreaker(): Promise<void> {
    for (let i = 0; i < 3; i += 1) {
      const res = await client.request({ method: 'GET', path: '/claims' });
      expect(res.status).toBe(503);
    }
  }

  it('when the target keeps answering 503, then the breaker opens and later calls fail fast without touching the network', async () => {
    await openTheBreaker();
    expect(client.isOpen()).toBe(true);
    const hitsWhenOpened = downstream.hits;

    const before = performance.now();
    const err = await rejectionOf(() => client.request({ method: 'GET', path: '/claims' }));
    const elapsed = performance.now() - before;

    expect(err).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      status: 503,
      message: 'registry is unavailable (circuit open)',
    });
    expect(err.headers['Retry-After']).toBe('1');
    expect(downstream.hits).toBe(hitsWhenOpened);
    expect(elapsed).toBeLessThan(50);
    const text = await registry.metrics();
    expect(text).toContain('circuit_breaker_state{target="registry"} 2');
    expect(text).toContain('http_client_requests_total{target="registry",status="circuit_open"} 1');
    expect(text).toContain('http_client_requests_total{target="registry",status="503"} 3');
  });

  it('when the breaker is open and the reset timeout passes, then one trial call goes through and a success closes it', async () => {
    await openTheBreaker();
    downstream.handle(answering(200));

    await wait(350);
    expect(await registry.metrics()).toContain('circuit_breaker_state{target="registry"} 1');
    const res = await client.request({ method: 'GET', path: '/claims' });

    expect(res.status).toBe(200);
    expect(client.isOpen()).toBe(false);
    expect(await registry.metrics()).toContain('circuit_breaker_state{target="registry"} 0');
    expect((await client.request({ method: 'GET', path: '/claims' })).status).toBe(200);
  });

  it('when the half-open trial fails, then the breaker opens again', async () => {
    await openTheBreaker();

    await wait(350);
    const trial = await client.request({ method: 'GET', path: '/claims' });

    expect(trial.status).toBe(503);
    expect(client.isOpen()).toBe(true);
  });

  it('when the target answers 4xx, then the breaker never opens', async () => {
    downstream.handle(answering(404));

    for (let i = 0; i < 10; i += 1)
      expect((await client.request({ method: 'GET', path: '/x' })).status).toBe(404);

    expect(client.isOpen()).toBe(false);
    expect(downstream.hits).toBe(10);
  });

  it('when the target answers 500, then it is returned and the breaker stays closed', async () => {
    downstream.handle(answering(500));

    for (let i = 0; i < 10; i += 1)
      expect((await client.request({ method: 'GET', path: '/x' })).status).toBe(500);

    expect(client.isOpen()).toBe(false);
  });

  it.each([502, 504])('when the target keeps answering %i, then the breaker opens', async (status) => {
    downstream.handle(answering(status));

    // A read answered 502 is sent once more (http-client-retry.test.ts): each attempt counts, and
    // the circuit may already refuse the third call.
    for (let i = 0; i < 3; i += 1) await client.request({ method: 'GET', path: '/x' }).catch(() => undefined);

    expect(client.isOpen()).toBe(true);
  });

  it('when the breaker opens with a long reset timeout, then Retry-After counts the seconds until half-open', async () => {
    const slowReset = createHttpClient({
      target: 'registry',
      baseUrl: downstream.url,
      registry,
      breaker: { volumeThreshold: 1, resetTimeoutMs: 30_000 },
    });
    await slowReset.request({ method: 'GET', path: '/x' });

    const err = await rejectionOf(() => slowReset.request({ method: 'GET', path: '/x' }));
    await slowReset.close();

    expect(err.headers['Retry-After']).toBe('30');
  });

  it('when the connection is refused again and again, then the breaker opens', async () => {
    const down = createHttpClient({
      target: 'billing',
      baseUrl: `http://127.0.0.1:${await closedPort()}`,
      registry,
      breaker: { volumeThreshold: 3 },
    });

    const messages: string[] = [];
    for (let i = 0; i < 4; i += 1)
      messages.push((await rejectionOf(() => down.request({ method: 'GET', path: '/' }))).message);
    await down.close();

    expect(messages).toEqual([
      'billing is unreachable',
      'billing is unreachable',
      'billing is unreachable',
      'billing is unavailable (circuit open)',
    ]);
  });

  it('when the caller sends an invalid header, then its error is rethrown as is and does not count against the target', async () => {
    downstream.handle(answering(200));

    for (let i = 0; i < 5; i += 1) {
      const err = await rejectionOf(() =>
        client.request({ method: 'GET', path: '/', headers: { 'x-bad': 'a\nb' } }),
      );
      expect(err.code).toBe('UND_ERR_INVALID_ARG');
    }

    expect(client.isOpen()).toBe(false);
    expect(downstream.hits).toBe(0);
  });
});
