import { Registry } from 'prom-client';
import { createHttpClient } from '../../src';
import { rejectionOf, startDownstream, type Downstream } from './downstream.fixture';

// A call that broke without an answer (a kept-alive socket closed under it, a replica killed
// behind a load balancer) is sent once more when repeating it can do no harm (issue #34).

let downstream: Downstream;

beforeEach(async () => {
  downstream = await startDownstream();
});

afterEach(() => downstream.close());

/** The first request's connection is destroyed without an answer; the next ones are answered 200. */
function breakFirst(): void {
  let seen = 0;
  downstream.handle((req, res) => {
    seen += 1;
    if (seen === 1) {
      req.socket.destroy();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ ok: true, attempt: seen }));
  });
}

describe('http client: a call that broke without an answer', () => {
  it('when a read breaks, then it is sent once more and its answer comes back', async () => {
    breakFirst();
    const registry = new Registry();
    const client = createHttpClient({ target: 'registry', baseUrl: downstream.url, registry });
    const res = await client.json<{ attempt: number }>({ method: 'GET', path: '/boxes/1' });
    await client.close();
    expect(res).toMatchObject({ status: 200, body: { attempt: 2 } });
    expect(downstream.hits).toBe(2);
    expect(await registry.metrics()).toContain(
      'http_client_requests_total{target="registry",status="retried"} 1',
    );
  });

  it('when a write with an Idempotency-Key breaks, then it is sent once more (its service applies it once)', async () => {
    breakFirst();
    const client = createHttpClient({ target: 'billing', baseUrl: downstream.url });
    const res = await client.json<{ attempt: number }>({
      method: 'POST',
      path: '/usage',
      headers: { 'Idempotency-Key': 'usage-1' },
      body: { units: 1 },
    });
    await client.close();
    expect(res).toMatchObject({ status: 200, body: { attempt: 2 } });
  });

  it('when a write without an Idempotency-Key breaks, then it is not sent again: 503 connection_failed', async () => {
    breakFirst();
    const client = createHttpClient({ target: 'billing', baseUrl: downstream.url });
    const err = await rejectionOf(() => client.json({ method: 'POST', path: '/usage', body: { units: 1 } }));
    await client.close();
    expect(err).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503, headers: { 'Retry-After': '1' } });
    expect(downstream.hits).toBe(1);
  });

  it('when a load balancer answers 502 to a read, then it is sent once more; a second 502 is given back', async () => {
    let seen = 0;
    downstream.handle((_req, res) => {
      seen += 1;
      res.writeHead(seen === 1 ? 502 : 200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ attempt: seen }));
    });
    const client = createHttpClient({ target: 'licensing', baseUrl: downstream.url });
    expect(await client.json({ method: 'GET', path: '/x' })).toMatchObject({
      status: 200,
      body: { attempt: 2 },
    });

    downstream.handle((_req, res) => {
      seen += 1;
      res.writeHead(502, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ attempt: seen }));
    });
    const before = seen;
    expect(await client.json({ method: 'GET', path: '/x' })).toMatchObject({ status: 502 });
    expect(seen - before).toBe(2);
    await client.close();
  });

  it('when a read times out, then it is not sent again: the target may be slow, not gone', async () => {
    downstream.handle(() => undefined);
    const client = createHttpClient({ target: 'detection', baseUrl: downstream.url, timeoutMs: 200 });
    const err = await rejectionOf(() => client.json({ method: 'GET', path: '/slow' }));
    await client.close();
    expect(err).toMatchObject({
      code: 'SERVICE_UNAVAILABLE',
      message: 'detection did not answer within 200 ms',
    });
    expect(downstream.hits).toBe(1);
  });
});
