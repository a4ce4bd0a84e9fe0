import { request as httpRequest, type IncomingHttpHeaders } from 'node:http';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib';
import express from 'express';
import { securityHeaders } from '../../src/entry-points/http/security-headers';
import { ADMIN_TOKEN, startHarness, type Harness } from '../fixtures/gateway-harness';

// Issue #30: the dashboard could be framed by another site's page (one click revoked a key), no
// answer carried CSP, nosniff, a Referrer-Policy or HSTS, the 4.7 MB source map was public and the
// bundle went uncompressed. A built dashboard of our own (with a map left in it) is served here.

const SCRIPT = `console.log(${JSON.stringify('x'.repeat(4000))});\n`;
let h: Harness;
let dir: string;

beforeAll(async () => {
  dir = mkdtempSync(path.join(tmpdir(), 'dashboard-dist-'));
  mkdirSync(path.join(dir, 'assets'));
  writeFileSync(
    path.join(dir, 'index.html'),
    '<!doctype html><html><head><script type="module" src="/dashboard/assets/index-abc123.js"></script></head><body><div id="root"></div></body></html>',
  );
  writeFileSync(path.join(dir, 'assets/index-abc123.js'), SCRIPT);
  writeFileSync(path.join(dir, 'assets/index-abc123.js.br'), brotliCompressSync(SCRIPT));
  writeFileSync(path.join(dir, 'assets/index-abc123.js.gz'), gzipSync(SCRIPT));
  writeFileSync(path.join(dir, 'assets/index-abc123.js.map'), '{"version":3,"sources":["secret.tsx"]}');
  writeFileSync(path.join(dir, 'index.html.map'), '{}');
  writeFileSync(path.join(dir, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>');
  // The API reference the dashboard's build writes beside it (Redoc's page, its script, the bundle).
  mkdirSync(path.join(dir, 'docs'));
  writeFileSync(
    path.join(dir, 'docs/index.html'),
    '<!doctype html><title>API reference</title><div id="reference"></div>',
  );
  writeFileSync(path.join(dir, 'docs/redoc.standalone.js'), SCRIPT);
  writeFileSync(path.join(dir, 'docs/redoc.standalone.js.br'), brotliCompressSync(SCRIPT));
  h = await startHarness({ env: { DASHBOARD_DIR: dir } });
});
afterAll(async () => {
  await h.stop();
  rmSync(dir, { recursive: true, force: true });
});

interface RawReply {
  status: number;
  headers: IncomingHttpHeaders;
  body: Buffer;
}

/** A request whose body is read as sent (no transparent decompression, unlike fetch). */
function get(url: string, headers: Record<string, string> = {}, method = 'GET'): Promise<RawReply> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(url, { method, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks) }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

function expectNoFraming(headers: IncomingHttpHeaders): void {
  expect(headers['x-frame-options']).toBe('DENY');
  expect(headers['content-security-policy']).toMatch(/frame-ancestors 'none'/);
  expect(headers['x-content-type-options']).toBe('nosniff');
  expect(headers['referrer-policy']).toBe('no-referrer');
  // Plain http: no HSTS.
  expect(headers['strict-transport-security']).toBeUndefined();
}

describe('security headers', () => {
  it('when the dashboard page is asked for, then it cannot be framed and its CSP allows only its own scripts', async () => {
    for (const page of ['/dashboard', '/dashboard/', '/dashboard/keys']) {
      const res = await get(`${h.url}${page}`);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/text\/html/);
      expectNoFraming(res.headers);
      const csp = res.headers['content-security-policy'] ?? '';
      expect(csp).toMatch(/script-src 'self'(;|$)/);
      expect(csp).toMatch(/default-src 'self'/);
      expect(csp).not.toMatch(/unsafe-inline|unsafe-eval/);
      expect(res.headers['cache-control']).toBe('no-cache');
    }
  });

  it('when an API answer, an error or a 404 is sent, then it carries the API policy (nothing loads, no framing)', async () => {
    const answers = [
      await get(`${h.url}/admin/platforms`, { authorization: `Bearer ${ADMIN_TOKEN}` }),
      // 401 of the public API, answered before the body is read.
      await get(`${h.url}/v1/svc/anything`),
      await get(`${h.url}/admin/platforms`),
      await get(`${h.url}/no/such/path`),
      await get(`${h.url}/dashboard/api/keys`),
      // An uploaded picture's address (shown by pages of any origin): the API's policy too.
      await get(`${h.url}/dashboard/uploads/up_unknown0000000000000000`),
      // Liveness and readiness are answers of the API too.
      await get(`${h.url}/healthz`),
      await get(`${h.url}/readyz`),
    ];
    expect(answers.map((a) => a.status)).toEqual([200, 401, 401, 404, 401, 404, 200, 200]);
    for (const res of answers) {
      expect(res.headers['content-type']).toMatch(/application\/json/);
      expectNoFraming(res.headers);
      expect(res.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'");
    }
  });

  it('when a request claims https without a trusted proxy, then no HSTS is sent', async () => {
    const res = await get(`${h.url}/dashboard/`, { 'x-forwarded-proto': 'https' });
    expect(res.headers['strict-transport-security']).toBeUndefined();
  });

  it('when a request came over https (req.secure: a trusted proxy said so), then HSTS is sent; over http it is not', async () => {
    // The trust proxy setting is the deployment's; here an app that trusts its loopback proxy.
    const app = express();
    app.set('trust proxy', 'loopback');
    app.use(securityHeaders);
    app.get('/x', (_req, res) => res.json({ ok: true }));
    const server = app.listen(0, '127.0.0.1');
    await new Promise((resolve) => server.once('listening', resolve));
    try {
      const { port } = server.address() as { port: number };
      const https = await get(`http://127.0.0.1:${port}/x`, { 'x-forwarded-proto': 'https' });
      expect(https.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
      expectNoFraming((await get(`http://127.0.0.1:${port}/x`)).headers);
    } finally {
      await new Promise((resolve) => server.close(resolve));
    }
  });
});

describe('HSTS behind a trusted proxy (TRUST_PROXY)', () => {
  let behindProxy: Harness;
  beforeAll(async () => {
    behindProxy = await startHarness({ env: { TRUST_PROXY: 'loopback' } });
  });
  afterAll(async () => {
    await behindProxy.stop();
  });

  it('when the trusted proxy forwards an https request, then HSTS is sent; a plain http request gets none', async () => {
    const https = await get(`${behindProxy.url}/no/such/path`, { 'x-forwarded-proto': 'https' });
    expect(https.headers['strict-transport-security']).toBe('max-age=31536000; includeSubDomains');
    const http = await get(`${behindProxy.url}/no/such/path`, { 'x-forwarded-proto': 'http' });
    expect(http.headers['strict-transport-security']).toBeUndefined();
  });
});

describe('dashboard assets', () => {
  const asset = () => `${h.url}/dashboard/assets/index-abc123.js`;

  it('when a source map is asked for, then 404 even though the file is in the built directory', async () => {
    for (const map of ['/dashboard/assets/index-abc123.js.map', '/dashboard/index.html.map']) {
      const res = await get(`${h.url}${map}`, { 'accept-encoding': 'br, gzip' });
      expect(res.status).toBe(404);
      expect(res.body.toString()).not.toContain('secret.tsx');
      expect(JSON.parse(res.body.toString()).error.code).toBe('NOT_FOUND');
    }
  });

  it('when the browser accepts brotli, then the pre-compressed file is sent with Content-Encoding br and Vary', async () => {
    const res = await get(asset(), { 'accept-encoding': 'gzip, deflate, br' });
    expect(res.status).toBe(200);
    expect(res.headers['content-encoding']).toBe('br');
    expect(res.headers.vary).toMatch(/Accept-Encoding/i);
    expect(res.headers['content-type']).toMatch(/javascript/);
    expect(res.body.length).toBeLessThan(SCRIPT.length / 10);
    expect(brotliDecompressSync(res.body).toString()).toBe(SCRIPT);
    expect(res.headers['cache-control']).toBe('public, max-age=31536000, immutable');
    expectNoFraming(res.headers);
  });

  it('when the browser accepts gzip only, then gzip; with neither, the file as it is', async () => {
    const gz = await get(asset(), { 'accept-encoding': 'gzip' });
    expect(gz.headers['content-encoding']).toBe('gzip');
    expect(gz.headers.vary).toMatch(/Accept-Encoding/i);
    expect(gunzipSync(gz.body).toString()).toBe(SCRIPT);
    const plain = await get(asset(), { 'accept-encoding': 'identity' });
    expect(plain.headers['content-encoding']).toBeUndefined();
    expect(plain.body.toString()).toBe(SCRIPT);
    expect(plain.headers['cache-control']).toBe('public, max-age=31536000, immutable');
  });

  it('when an asset does not exist, then 404, not the page', async () => {
    const res = await get(`${h.url}/dashboard/assets/index-gone999.js`);
    expect(res.status).toBe(404);
    expectNoFraming(res.headers);
  });
});

describe('the root and the icon', () => {
  it('when a browser opens the service’s address, then it is sent to the dashboard', async () => {
    const res = await get(`${h.url}/`, { accept: 'text/html' });
    expect(res.status).toBe(302);
    expect(res.headers.location).toBe('/dashboard');
    expectNoFraming(res.headers);
  });

  it('when the API reference is asked for, then its page and bundle are served unframeable, scripts only its own, and an unknown file is 404', async () => {
    for (const page of ['/docs', '/docs/']) {
      const res = await get(`${h.url}${page}`);
      expect(res.status).toBe(200);
      expect(res.headers['content-type']).toMatch(/text\/html/);
      expect(res.body.toString()).toContain('API reference');
      expectNoFraming(res.headers);
      const csp = res.headers['content-security-policy'] ?? '';
      // Redoc injects its styles and searches in a blob worker; scripts and calls stay the gateway's.
      expect(csp).toMatch(/script-src 'self'(;|$)/);
      expect(csp).toMatch(/connect-src 'self'(;|$)/);
      expect(csp).toMatch(/style-src 'self' 'unsafe-inline'/);
      expect(csp).toMatch(/worker-src 'self' blob:/);
      expect(csp).not.toMatch(/unsafe-eval/);
      expect(res.headers['cache-control']).toBe('no-cache');
    }
    const bundle = await get(`${h.url}/docs/redoc.standalone.js`, { 'accept-encoding': 'br, gzip' });
    expect(bundle.status).toBe(200);
    expect(bundle.headers['content-encoding']).toBe('br');
    expect(bundle.headers['content-type']).toMatch(/javascript/);
    expect(brotliDecompressSync(bundle.body).toString()).toBe(SCRIPT);
    const missing = await get(`${h.url}/docs/nothing-here.js`);
    expect(missing.status).toBe(404);
    expect(JSON.parse(missing.body.toString()).error.code).toBe('NOT_FOUND');
  });

  it('when a browser asks for /favicon.ico, then it is sent to the dashboard’s icon, which is served', async () => {
    const res = await get(`${h.url}/favicon.ico`);
    expect(res.status).toBe(301);
    expect(res.headers.location).toBe('/dashboard/favicon.svg');
    const icon = await get(`${h.url}/dashboard/favicon.svg`);
    expect(icon.status).toBe(200);
    expect(icon.headers['content-type']).toMatch(/^image\/svg\+xml/);
  });
});
