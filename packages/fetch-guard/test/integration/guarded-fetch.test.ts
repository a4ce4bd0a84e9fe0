import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { checkUrl, closeGuardedAgents, FetchGuardError, guardedFetch } from '../../src';

// Local servers on 127.0.0.1: reachable only with allowPrivate, or with a test policy that lets
// the first hop through and refuses the next. (A host name resolving to loopback is covered
// with the default policy: that refusal happens in the connect-time lookup.)

let server: Server;
let base: string;
let port: number;

function route(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://x');
  switch (url.pathname) {
    case '/ok':
      res.writeHead(200, { 'content-type': 'text/plain' }).end('hello');
      return;
    case '/echo': {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => res.writeHead(200).end(`${req.method} ${Buffer.concat(chunks).toString()}`));
      return;
    }
    case '/redirect':
      res.writeHead(302, { location: url.searchParams.get('to') ?? '/ok' }).end();
      return;
    case '/loop':
      res.writeHead(302, { location: '/loop' }).end();
      return;
    case '/huge-streamed': {
      // 11 MB in 1 MB chunks, without a Content-Length: refused while streaming.
      res.writeHead(200, { 'content-type': 'application/octet-stream' });
      const chunk = Buffer.alloc(1024 * 1024, 1);
      let sent = 0;
      const push = (): void => {
        while (sent < 11) {
          sent += 1;
          if (!res.write(chunk)) {
            res.once('drain', push);
            return;
          }
        }
        res.end();
      };
      push();
      return;
    }
    case '/huge-declared':
      res.writeHead(200, { 'content-length': String(11 * 1024 * 1024) });
      res.write('x');
      return; // never finishes: the declared length alone must refuse it
    case '/hang':
      return; // never answers
    case '/stall':
      res.writeHead(200, { 'content-type': 'image/jpeg' });
      res.write(Buffer.alloc(4096, 1));
      return; // the link goes silent mid-body: nothing more, nothing closed
    default:
      res.writeHead(404).end();
  }
}

beforeAll(async () => {
  server = createServer(route);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});
afterAll(async () => {
  await closeGuardedAgents();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function reasonOf(promise: Promise<unknown>): Promise<string> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof FetchGuardError) return err.reason;
    throw err;
  }
  throw new Error('expected a FetchGuardError');
}

describe('guardedFetch', () => {
  it('when the address is loopback and private fetches are not allowed, then it is refused', async () => {
    expect(await reasonOf(guardedFetch(`${base}/ok`))).toBe('private_address');
    expect(await reasonOf(guardedFetch(`http://[::1]:${port}/ok`))).toBe('private_address');
    expect(await reasonOf(guardedFetch('http://169.254.169.254/latest/meta-data/'))).toBe('private_address');
  });

  it('when a host name resolves to loopback, then the connect-time lookup refuses it', async () => {
    expect(await reasonOf(guardedFetch(`http://localhost:${port}/ok`))).toBe('private_address');
  });

  it('when private fetches are allowed, then a local server answers', async () => {
    const res = await guardedFetch(`${base}/ok`, { allowPrivate: true });
    expect(res.status).toBe(200);
    expect(res.body.toString()).toBe('hello');
    expect(res.finalUrl).toBe(`${base}/ok`);
  });

  it('when a POST carries a body, then the server receives it', async () => {
    const res = await guardedFetch(`${base}/echo`, { allowPrivate: true, method: 'POST', body: 'abc' });
    expect(res.body.toString()).toBe('POST abc');
  });

  it('when the scheme is not allowed or the URL is malformed, then it is refused', async () => {
    expect(await reasonOf(guardedFetch('file:///etc/passwd'))).toBe('scheme');
    expect(await reasonOf(guardedFetch('ftp://example.com/x'))).toBe('scheme');
    expect(await reasonOf(guardedFetch(`${base}/ok`, { allowPrivate: true, schemes: ['https'] }))).toBe(
      'scheme',
    );
    expect(await reasonOf(guardedFetch('not a url'))).toBe('invalid_url');
  });

  it('when a redirect leads to a refused address, then it is refused', async () => {
    // The policy lets 127.0.0.1 through and refuses 127.0.0.2.
    const policy = (address: string) => (address === '127.0.0.1' ? null : 'refused by test policy');
    const toOther = `${base}/redirect?to=${encodeURIComponent(`http://127.0.0.2:${port}/ok`)}`;
    expect(await reasonOf(guardedFetch(toOther, { addressPolicy: policy }))).toBe('private_address');
    const toFile = `${base}/redirect?to=${encodeURIComponent('file:///etc/passwd')}`;
    expect(await reasonOf(guardedFetch(toFile, { addressPolicy: policy }))).toBe('scheme');
  });

  it('when redirects are followed, then at most maxRedirects are', async () => {
    const ok = await guardedFetch(`${base}/redirect?to=/ok`, { allowPrivate: true });
    expect(ok.status).toBe(200);
    expect(ok.finalUrl).toBe(`${base}/ok`);
    expect(await reasonOf(guardedFetch(`${base}/loop`, { allowPrivate: true }))).toBe('too_many_redirects');
    expect(
      await reasonOf(guardedFetch(`${base}/redirect?to=/ok`, { allowPrivate: true, maxRedirects: 0 })),
    ).toBe('too_many_redirects');
  });

  it('when the body grows past 10 MB while streaming, then it is refused', async () => {
    expect(await reasonOf(guardedFetch(`${base}/huge-streamed`, { allowPrivate: true }))).toBe('too_large');
  });

  it('when Content-Length declares more than the limit, then it is refused before reading', async () => {
    const started = performance.now();
    expect(await reasonOf(guardedFetch(`${base}/huge-declared`, { allowPrivate: true }))).toBe('too_large');
    expect(performance.now() - started).toBeLessThan(2000);
  });

  it('when the server never answers, then the deadline ends the fetch', async () => {
    const started = performance.now();
    expect(await reasonOf(guardedFetch(`${base}/hang`, { allowPrivate: true, timeoutMs: 300 }))).toBe(
      'timeout',
    );
    expect(performance.now() - started).toBeLessThan(1500);
  });

  it('when the body stops mid-way and nothing is closed, then the deadline ends the fetch', async () => {
    const started = performance.now();
    expect(await reasonOf(guardedFetch(`${base}/stall`, { allowPrivate: true, timeoutMs: 300 }))).toBe(
      'timeout',
    );
    expect(performance.now() - started).toBeLessThan(1500);
  });

  it('when the peer takes the connection and never says a byte (a blackhole), then the deadline ends the fetch', async () => {
    const sockets: Socket[] = [];
    const silent = createNetServer((socket) => sockets.push(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', () => resolve()));
    try {
      const silentPort = (silent.address() as AddressInfo).port;
      const started = performance.now();
      expect(
        await reasonOf(
          guardedFetch(`http://127.0.0.1:${silentPort}/`, { allowPrivate: true, timeoutMs: 300 }),
        ),
      ).toBe('timeout');
      expect(performance.now() - started).toBeLessThan(1500);
      // The next fetch from the same agent is not held up by the dead one.
      expect((await guardedFetch(`${base}/ok`, { allowPrivate: true })).status).toBe(200);
    } finally {
      for (const socket of sockets) socket.destroy();
      await new Promise((resolve) => silent.close(resolve));
    }
  });

  it('when nothing listens, then it is unreachable', async () => {
    expect(await reasonOf(guardedFetch('http://127.0.0.1:1/', { allowPrivate: true }))).toBe('unreachable');
  });
});

describe('checkUrl', () => {
  it('when the URL is private, then it is refused unless allowed', async () => {
    expect(await reasonOf(checkUrl(`${base}/ok`))).toBe('private_address');
    expect(await reasonOf(checkUrl(`http://localhost:${port}/`))).toBe('private_address');
    await expect(checkUrl(`${base}/ok`, { allowPrivate: true })).resolves.toBeInstanceOf(URL);
    expect(await reasonOf(checkUrl('http://example.com/', { schemes: ['https'] }))).toBe('scheme');
  });
});
