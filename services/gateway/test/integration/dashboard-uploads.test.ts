import { readFileSync } from 'node:fs';
import path from 'node:path';
import { startHarness, type Harness } from '../fixtures/gateway-harness';

// Reference pictures uploaded from the dashboard (ADR 0024): a signed-in creator stores a picture
// and gets an unguessable URL the gateway serves it at, which the public API then takes as any URL.
let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h.stop();
});

const PNG = readFileSync(path.resolve(__dirname, '../../samples/sample-portrait.png'));

let n = 0;
async function signUp() {
  n += 1;
  const res = await h.signUp({
    email: `uploader${n}@example.com`,
    password: 'twelve chars or more',
    name: `Uploader ${n}`,
    role: 'creator',
  });
  expect(res.status).toBe(200);
  const cookie = `svc_session=${/svc_session=([^;]+)/.exec(res.headers.get('set-cookie') ?? '')?.[1]}`;
  return { cookie, csrf: res.body.data.csrfToken as string };
}

async function upload(
  body: Buffer | string,
  headers: Record<string, string>,
): Promise<{ status: number; body: any; headers: Headers }> {
  const res = await fetch(`${h.url}/dashboard/api/uploads`, { method: 'POST', body, headers });
  const text = await res.text();
  return { status: res.status, body: text === '' ? undefined : JSON.parse(text), headers: res.headers };
}

describe('dashboard uploads', () => {
  it('when a creator uploads a PNG, then the answered URL serves the same bytes as image/png, nosniff and cacheable', async () => {
    const { cookie, csrf } = await signUp();
    const res = await upload(PNG, { cookie, 'x-csrf-token': csrf, 'content-type': 'image/png' });
    expect(res.status).toBe(201);
    expect(res.body.data).toMatchObject({ contentType: 'image/png', sizeBytes: PNG.length });
    const url: string = res.body.data.url;
    expect(url).toMatch(new RegExp(`^${h.url}/dashboard/uploads/[A-Za-z0-9_-]{24}$`));

    // Served without a session: the URL is what the detection service fetches.
    const served = await fetch(url);
    expect(served.status).toBe(200);
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(served.headers.get('x-content-type-options')).toBe('nosniff');
    expect(served.headers.get('cache-control')).toMatch(/max-age=\d+/);
    expect(Buffer.from(await served.arrayBuffer()).equals(PNG)).toBe(true);
  });

  it('when the bytes are a PNG sent as application/octet-stream, then the stored type is what the bytes are', async () => {
    const { cookie, csrf } = await signUp();
    const res = await upload(PNG, {
      cookie,
      'x-csrf-token': csrf,
      'content-type': 'application/octet-stream',
    });
    expect(res.status).toBe(201);
    const served = await fetch(res.body.data.url);
    expect(served.headers.get('content-type')).toBe('image/png');
  });

  it('when the file is text, as text or dressed up as a PNG, then 415 says which pictures are accepted', async () => {
    const { cookie, csrf } = await signUp();
    const asText = await upload('just some words\n', {
      cookie,
      'x-csrf-token': csrf,
      'content-type': 'text/plain',
    });
    expect(asText.status).toBe(415);
    expect(asText.body.error.code).toBe('VALIDATION_ERROR');
    expect(asText.body.error.message).toBe(
      'A text/plain file is not accepted. Upload a PNG, JPEG or WebP picture.',
    );
    expect(asText.body.error.details.fields[0].field).toBe('file');

    const disguised = await upload('<svg onload=alert(1)></svg>', {
      cookie,
      'x-csrf-token': csrf,
      'content-type': 'image/png',
    });
    expect(disguised.status).toBe(415);
    expect(disguised.body.error.message).toBe(
      'The file is not a PNG, JPEG or WebP picture. Upload a PNG, JPEG or WebP picture.',
    );
  });

  it('when the picture is over 5 MiB, then 413 in the error envelope', async () => {
    const { cookie, csrf } = await signUp();
    const big = Buffer.concat([PNG, Buffer.alloc(5 * 1024 * 1024)]);
    const res = await upload(big, { cookie, 'x-csrf-token': csrf, 'content-type': 'image/png' });
    expect(res.status).toBe(413);
    expect(res.body.error).toMatchObject({
      code: 'VALIDATION_ERROR',
      message: 'The picture is larger than 5 MiB',
    });
  });

  it('when nobody is signed in, then 401 and nothing is stored', async () => {
    const res = await upload(PNG, { 'content-type': 'image/png' });
    expect(res.status).toBe(401);
    expect(res.body.error.code).toBe('UNAUTHORIZED');
  });

  it('when another site posts with the session (no CSRF token, or a foreign Origin), then 403', async () => {
    const { cookie, csrf } = await signUp();
    const noToken = await upload(PNG, { cookie, 'content-type': 'image/png' });
    expect(noToken.status).toBe(403);
    const foreign = await upload(PNG, {
      cookie,
      'x-csrf-token': csrf,
      origin: 'https://evil.example',
      'content-type': 'image/png',
    });
    expect(foreign.status).toBe(403);
    expect(foreign.body.error.message).toBe('Cross-site request refused');
  });

  it('when an id is unknown, then 404', async () => {
    const res = await fetch(`${h.url}/dashboard/uploads/AAAAAAAAAAAAAAAAAAAAAAAA`);
    expect(res.status).toBe(404);
  });
});
