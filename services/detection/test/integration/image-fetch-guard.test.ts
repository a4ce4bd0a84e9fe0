import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ManualClock } from '@svc/clock';
import { AppError } from '@svc/errors';
import { closeGuardedAgents } from '@svc/fetch-guard';
import { FINGERPRINT_WORDS, fingerprintImage, imageSimilarity } from '@svc/image-fingerprint';
import sharp from 'sharp';
import { ImageFetcher } from '../../src/data-access/image-fetcher';

// The image fetcher through the real outbound-fetch guard against a local HTTP server. The server
// is on 127.0.0.1, so the happy paths run with allowPrivateFetch (as development and tests do);
// the refusals run without it, or with a test address policy that lets only the first hop through.

const ELEVEN_MB = 11 * 1024 * 1024;

let server: Server;
let base: string;
let port: number;
let png: Buffer;
let jpeg: Buffer;
const hits = new Map<string, number>();

function route(req: IncomingMessage, res: ServerResponse): void {
  const url = new URL(req.url ?? '/', 'http://x');
  hits.set(url.pathname, (hits.get(url.pathname) ?? 0) + 1);
  switch (url.pathname) {
    case '/picture.png':
      res.writeHead(200, { 'content-type': 'image/png', 'content-length': png.length }).end(png);
      return;
    case '/picture.jpg':
      res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': jpeg.length }).end(jpeg);
      return;
    case '/notes.txt':
      res.writeHead(200, { 'content-type': 'text/plain' }).end('just some notes, not a picture\n');
      return;
    case '/redirect':
      res.writeHead(302, { location: url.searchParams.get('to') ?? '/picture.png' }).end();
      return;
    case '/huge-declared.jpg': {
      // Content-Length says 11 MB: the guard refuses it from the header.
      res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': String(ELEVEN_MB) });
      res.write(jpeg);
      return;
    }
    case '/huge-streamed.jpg': {
      // 11 MB in 1 MB chunks without a Content-Length (chunked): refused while streaming.
      res.writeHead(200, { 'content-type': 'image/jpeg' });
      const chunk = Buffer.alloc(1024 * 1024, 0xff);
      let sent = 0;
      const push = (): void => {
        while (sent < 11) {
          sent += 1;
          if (!res.write(sent === 1 ? Buffer.concat([jpeg, chunk]) : chunk)) {
            res.once('drain', push);
            return;
          }
        }
        res.end();
      };
      res.on('error', () => undefined);
      push();
      return;
    }
    default:
      res.writeHead(404, { 'content-type': 'text/plain' }).end('not found');
  }
}

beforeAll(async () => {
  const svg = Buffer.from(
    '<svg xmlns="http://www.w3.org/2000/svg" width="320" height="240">' +
      '<defs><linearGradient id="g"><stop offset="0" stop-color="#1d3557"/><stop offset="1" stop-color="#a8dadc"/></linearGradient></defs>' +
      '<rect width="320" height="240" fill="url(#g)"/><circle cx="110" cy="120" r="70" fill="#e63946"/>' +
      '<rect x="200" y="40" width="90" height="150" fill="#f1faee" transform="rotate(12 245 115)"/></svg>',
  );
  png = await sharp(svg).png().toBuffer();
  jpeg = await sharp(svg).jpeg({ quality: 85 }).toBuffer();
  server = createServer(route);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
});

beforeEach(() => hits.clear());

afterAll(async () => {
  await closeGuardedAgents();
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

async function appErrorOf(promise: Promise<unknown>): Promise<AppError> {
  try {
    await promise;
  } catch (err) {
    if (err instanceof AppError) return err;
    throw err;
  }
  throw new Error('expected an AppError');
}

const openFetcher = () => new ImageFetcher({ allowPrivateFetch: true, clock: new ManualClock() });

describe('ImageFetcher through the fetch guard', () => {
  it('when a PNG and a JPEG are fetched, then both are fingerprinted and a second call is served from the cache', async () => {
    const fetcher = openFetcher();
    const fromPng = await fetcher.fingerprintOf(`${base}/picture.png`);
    const fromJpeg = await fetcher.fingerprintOf(`${base}/picture.jpg`);
    expect(imageSimilarity(fromPng, await fingerprintImage(png))).toBe(1);
    // The same drawing in two formats is the same picture.
    expect(imageSimilarity(fromPng, fromJpeg)).toBeGreaterThanOrEqual(0.86);

    const again = await fetcher.fingerprintOf(`${base}/picture.png`);
    await fetcher.fingerprintOf(`${base}/picture.jpg`);
    expect(again).toBe(fromPng);
    expect(hits.get('/picture.png')).toBe(1);
    expect(hits.get('/picture.jpg')).toBe(1);
    expect(fetcher.stats()).toEqual({ hits: 2, misses: 2, size: 2 });
  });

  it('when the URL is a loopback address and private fetches are off, then it is INVALID_IMAGE_URL (private_address)', async () => {
    const fetcher = new ImageFetcher({ allowPrivateFetch: false, clock: new ManualClock() });
    const error = await appErrorOf(fetcher.fingerprintOf(`${base}/picture.png`));
    expect(error).toMatchObject({
      code: 'INVALID_IMAGE_URL',
      status: 422,
      details: { reason: 'private_address' },
    });
    const byName = await appErrorOf(fetcher.fingerprintOf(`http://localhost:${port}/picture.png`));
    expect(byName).toMatchObject({ code: 'INVALID_IMAGE_URL', details: { reason: 'private_address' } });
    expect(hits.size).toBe(0);
  });

  it('when an allowed first hop redirects to a private address, then it is INVALID_IMAGE_URL (private_address)', async () => {
    // The test policy lets 127.0.0.1 through (standing for a public host) and refuses the rest.
    const addressPolicy = (address: string) => (address === '127.0.0.1' ? null : 'refused by test policy');
    const fetcher = new ImageFetcher({ allowPrivateFetch: false, clock: new ManualClock(), addressPolicy });
    const target = encodeURIComponent(`http://127.0.0.2:${port}/picture.png`);
    const error = await appErrorOf(fetcher.fingerprintOf(`${base}/redirect?to=${target}`));
    expect(error).toMatchObject({ code: 'INVALID_IMAGE_URL', details: { reason: 'private_address' } });
    expect(hits.get('/redirect')).toBe(1);
    expect(hits.get('/picture.png')).toBeUndefined();
    // The same first hop redirecting to itself is fine: the refusal above is the second hop's.
    const ok = await fetcher.fingerprintOf(`${base}/redirect?to=${encodeURIComponent('/picture.png')}`);
    expect(ok.words).toHaveLength(FINGERPRINT_WORDS);
  });

  it('when an 11 MB image declares its length, then it is IMAGE_TOO_LARGE', async () => {
    const error = await appErrorOf(openFetcher().fingerprintOf(`${base}/huge-declared.jpg`));
    expect(error).toMatchObject({ code: 'IMAGE_TOO_LARGE', status: 413 });
  });

  it('when an 11 MB image is streamed without a Content-Length, then it is IMAGE_TOO_LARGE', async () => {
    const error = await appErrorOf(openFetcher().fingerprintOf(`${base}/huge-streamed.jpg`));
    expect(error).toMatchObject({ code: 'IMAGE_TOO_LARGE', status: 413 });
  });

  it('when the URL serves a text file, then it is INVALID_IMAGE_URL', async () => {
    const error = await appErrorOf(openFetcher().fingerprintOf(`${base}/notes.txt`));
    expect(error).toMatchObject({
      code: 'INVALID_IMAGE_URL',
      status: 422,
      details: { reason: 'not_an_image' },
    });
  });

  it('when the URL answers 404, then it is INVALID_IMAGE_URL and nothing is cached', async () => {
    const fetcher = openFetcher();
    const error = await appErrorOf(fetcher.fingerprintOf(`${base}/gone.png`));
    expect(error).toMatchObject({
      code: 'INVALID_IMAGE_URL',
      details: { reason: 'http_status', status: 404 },
    });
    await appErrorOf(fetcher.fingerprintOf(`${base}/gone.png`));
    expect(hits.get('/gone.png')).toBe(2);
  });
});
