import { request as httpRequest } from 'node:http';
import { AppError } from '@svc/errors';
import { createService, type Service } from '../../src';
import { capturingLogger, SECRET } from './service.fixture';

/**
 * A service with a fast path (the gateway's public API, ADR 0041): requests under /fast are
 * answered without express, with the same request id, metrics, access line and error answers.
 */
function serviceWithFastPath(logger = capturingLogger().logger): Service {
  return createService({
    name: 'fast-test',
    logger,
    internalJwtSecret: SECRET,
    requireInternalAuth: false,
    jsonLimit: '1kb',
    routes: (router) => {
      router.get('/slow', (_req, res) => {
        res.json({ data: { via: 'express' } });
      });
    },
    fastPath: (kit, isSecure) => (req, res) => {
      if (!(req.url ?? '').startsWith('/fast')) return false;
      const exchange = kit.begin(req, res);
      exchange.facts.route = 'fastEcho';
      exchange.run(() => {
        void (async () => {
          if (req.url === '/fast/refuse') throw new AppError('FORBIDDEN', 'Not for you');
          if (req.url === '/fast/crash') throw new Error('a bug');
          if (req.url === '/fast/hang') return; // never answers: the client gives up
          const body = await kit.readBody(req);
          exchange.send(
            200,
            [{ 'Content-Type': 'application/octet-stream' }, { 'X-Secure': String(isSecure(req)) }],
            body ?? Buffer.alloc(0),
          );
        })().catch((err: unknown) => exchange.fail(err, { 'X-Extra': 'kept' }));
      });
      return true;
    },
  });
}

let service: Service;
let base: string;

afterEach(async () => {
  await service.stop();
});

async function start(logger = capturingLogger().logger): Promise<void> {
  service = serviceWithFastPath(logger);
  base = (await service.listen(0, '127.0.0.1')).url;
}

describe('createService with a fast path', () => {
  it('when a request is the fast path’s, then it answers it with the bytes received, a request id and the metrics series express would record', async () => {
    await start();
    const sent = '{ "name" :  "Ada" }';
    const res = await fetch(`${base}/fast/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-request-id': 'caller-chosen-id' },
      body: sent,
    });
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(sent);
    expect(res.headers.get('x-request-id')).toBe('caller-chosen-id');
    expect(res.headers.get('x-secure')).toBe('false');

    const other = await fetch(`${base}/fast/echo`, { headers: { 'x-request-id': 'not a sane id!' } });
    expect(other.headers.get('x-request-id')).toMatch(/^[A-Za-z0-9]{20}$/);

    const slow = await fetch(`${base}/slow`);
    expect(await slow.json()).toEqual({ data: { via: 'express' } });

    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(/http_requests_total\{method="POST",route="fastEcho",status="200"\} 1/);
    expect(metrics).toMatch(/http_requests_total\{method="GET",route="fastEcho",status="200"\} 1/);
  });

  it('when the body is over the limit, not JSON or compressed, then it is refused as every service refuses it (413, 415)', async () => {
    await start();
    const big = await fetch(`${base}/fast/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: 'x'.repeat(2000) }),
    });
    expect(big.status).toBe(413);
    expect(await big.json()).toMatchObject({
      error: { code: 'VALIDATION_ERROR', message: 'Request body is larger than the 1 KB limit' },
    });
    expect(big.headers.get('x-extra')).toBe('kept');

    const text = await fetch(`${base}/fast/echo`, {
      method: 'POST',
      headers: { 'content-type': 'text/plain' },
      body: 'hello',
    });
    expect(text.status).toBe(415);
    const zipped = await fetch(`${base}/fast/echo`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: '{}',
    });
    expect(zipped.status).toBe(415);
    expect(((await zipped.json()) as { error: { message: string } }).error.message).toMatch(
      /Content-Encoding gzip/,
    );
  });

  it('when the body is malformed, not an object or an array, or nested too deep, then 400 as body-parser answers, and a valid one passes byte for byte', async () => {
    await start();
    const post = (body: string) =>
      fetch(`${base}/fast/echo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    for (const bad of ['{"name":', '"just a string"', '42', `${'['.repeat(100)}${']'.repeat(100)}`]) {
      const res = await post(bad);
      expect(res.status).toBe(400);
      const body = (await res.json()) as { error: { code: string } };
      expect(body.error.code).toBe('VALIDATION_ERROR');
    }
    const malformed = (await (await post('{"name":')).json()) as { error: { message: string } };
    expect(malformed.error.message).toBe('Malformed JSON body');
    const fine = ' \n[1, {"a": "b"}] ';
    const res = await post(fine);
    expect(res.status).toBe(200);
    expect(await res.text()).toBe(fine);
  });

  it('when the body arrives chunked past the limit, then 413 without reading it all into memory', async () => {
    await start();
    const status = await new Promise<number>((resolve, reject) => {
      const req = httpRequest(`${base}/fast/echo`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'transfer-encoding': 'chunked' },
      });
      req.on('response', (res) => {
        res.resume();
        resolve(res.statusCode ?? 0);
      });
      req.on('error', reject);
      for (let i = 0; i < 8; i++) req.write('"' + 'y'.repeat(300) + '"');
      req.end();
    });
    expect(status).toBe(413);
  });

  it('when the handler fails, then the error answer is the shared envelope: the code, or INTERNAL with the request id and a log line', async () => {
    const { logger, lines } = capturingLogger();
    await start(logger);
    const refused = await fetch(`${base}/fast/refuse`);
    expect(refused.status).toBe(403);
    expect(refused.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await refused.json()).toEqual({ error: { code: 'FORBIDDEN', message: 'Not for you' } });

    const crashed = await fetch(`${base}/fast/crash`, { headers: { 'x-request-id': 'crash-1' } });
    expect(crashed.status).toBe(500);
    expect(await crashed.json()).toEqual({
      error: { code: 'INTERNAL', message: 'Internal error', details: { requestId: 'crash-1' } },
    });
    expect(JSON.stringify(lines)).toContain('Unexpected error');
    // The access line of the failed request names its code and status.
    const access = lines.find(
      (line) =>
        JSON.stringify(line.args).includes('"requestId":"crash-1"') &&
        JSON.stringify(line.args).includes('request failed'),
    );
    expect(access).toBeDefined();
    expect(JSON.stringify(access?.args)).toContain('"code":"INTERNAL"');
  });

  it('when the client gives up before the answer, then the request is counted with status 499', async () => {
    await start();
    const controller = new AbortController();
    const gaveUp = fetch(`${base}/fast/hang`, { signal: controller.signal }).catch(() => 'aborted');
    setTimeout(() => controller.abort(), 100);
    expect(await gaveUp).toBe('aborted');
    await new Promise((resolve) => setTimeout(resolve, 100));
    const metrics = await (await fetch(`${base}/metrics`)).text();
    expect(metrics).toMatch(/http_requests_total\{method="GET",route="fastEcho",status="499"\} 1/);
  });
});
