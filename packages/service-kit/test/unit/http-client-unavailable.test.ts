import { Registry } from 'prom-client';
import { isAppError } from '@svc/errors';
import { createHttpClient } from '../../src';
import { closedPort, rejectionOf, startDownstream } from './downstream.fixture';

describe('http client: a target that is down or hangs', () => {
  it('when nothing listens on the target port, then SERVICE_UNAVAILABLE naming the target comes back in under a second', async () => {
    const port = await closedPort();
    const registry = new Registry();
    const client = createHttpClient({ target: 'licensing', baseUrl: `http://127.0.0.1:${port}`, registry });

    const before = performance.now();
    const err = await rejectionOf(() => client.request({ method: 'GET', path: '/v1/svc/licenses' }));
    const elapsed = performance.now() - before;
    await client.close();

    expect(isAppError(err)).toBe(true);
    expect(err).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503, headers: { 'Retry-After': '1' } });
    expect(err.message).toBe('licensing is unreachable');
    expect(elapsed).toBeLessThan(1000);
    expect(await registry.metrics()).toContain(
      'http_client_requests_total{target="licensing",status="unreachable"} 1',
    );
  });

  it('when the target never answers and timeoutMs is 200, then SERVICE_UNAVAILABLE after about 200 ms', async () => {
    const downstream = await startDownstream(() => undefined);
    const registry = new Registry();
    const client = createHttpClient({ target: 'detection', baseUrl: downstream.url, registry });

    const before = performance.now();
    const err = await rejectionOf(() => client.request({ method: 'GET', path: '/slow', timeoutMs: 200 }));
    const elapsed = performance.now() - before;
    await client.close();
    await downstream.close();

    expect(err).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      status: 503,
      message: 'detection did not answer within 200 ms',
    });
    expect(elapsed).toBeGreaterThanOrEqual(190);
    expect(elapsed).toBeLessThan(600);
    expect(await registry.metrics()).toContain(
      'http_client_requests_total{target="detection",status="timeout"} 1',
    );
  });

  it('when the target sends headers at once but trickles the body past the timeout, then the whole exchange times out', async () => {
    const downstream = await startDownstream((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      const drip = setInterval(() => res.write('.'), 50);
      res.on('close', () => clearInterval(drip));
    });
    const client = createHttpClient({ target: 'billing', baseUrl: downstream.url, timeoutMs: 300 });

    const before = performance.now();
    const err = await rejectionOf(() => client.request({ method: 'GET', path: '/drip' }));
    const elapsed = performance.now() - before;
    await client.close();
    await downstream.close();

    expect(err).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      message: 'billing did not answer within 300 ms',
    });
    expect(elapsed).toBeLessThan(800);
  });

  it('when the target drops the connection mid-answer, then SERVICE_UNAVAILABLE', async () => {
    const downstream = await startDownstream((req) => req.socket.destroy());
    const client = createHttpClient({ target: 'webhooks', baseUrl: downstream.url });

    const err = await rejectionOf(() => client.request({ method: 'GET', path: '/' }));
    await client.close();
    await downstream.close();

    expect(err).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      message: 'webhooks is unavailable (connection failed)',
    });
  });

  it('when the client has been closed, then a call is SERVICE_UNAVAILABLE rather than a hang', async () => {
    const downstream = await startDownstream();
    const client = createHttpClient({ target: 'registry', baseUrl: downstream.url });
    await client.close();

    const err = await rejectionOf(() => client.request({ method: 'GET', path: '/' }));
    await downstream.close();

    expect(err).toMatchObject({ code: 'SERVICE_UNAVAILABLE' });
  });
});
