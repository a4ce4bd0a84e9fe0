import { BATCH_PATH, batchingFetch, MAX_BATCH_READS } from '../../src/api/batch';
import { setCsrfToken } from '../../src/api/http';

// The dashboard's reads sent together (#32, "Budgets"): what the browser sends, and what each part
// of a page gets back.

const ORIGIN = 'https://svc.example.test';

interface Sent {
  url: string;
  method: string;
  body: unknown;
  csrf: string | null;
}

/** A server that answers a batch read by read (the read's path as its body) and anything else 200. */
function fakeServer(batchAnswer?: () => Response) {
  const sent: Sent[] = [];
  const send = async (input: Request | string, init?: RequestInit): Promise<Response> => {
    const request = typeof input === 'string' ? new Request(input, init) : input;
    const text = request.method === 'GET' ? '' : await request.text();
    const body = text === '' ? undefined : (JSON.parse(text) as unknown);
    sent.push({ url: request.url, method: request.method, body, csrf: request.headers.get('X-CSRF-Token') });
    if (new URL(request.url).pathname !== BATCH_PATH) return Response.json({ data: { alone: request.url } });
    if (batchAnswer !== undefined) return batchAnswer();
    const reads = (body as { requests: { path: string }[] }).requests;
    return Response.json({
      data: {
        responses: reads.map(({ path }) =>
          path.includes('missing')
            ? { status: 404, body: { error: { code: 'NOT_FOUND', message: 'Box not found' } } }
            : { status: 200, body: { data: { path } } },
        ),
      },
    });
  };
  return { sent, fetch: batchingFetch(send, ORIGIN) };
}

const get = (path: string) => new Request(`${ORIGIN}${path}`);

describe('the dashboard’s reads sent together (#32)', () => {
  beforeEach(() => setCsrfToken('csrf-1'));
  afterAll(() => setCsrfToken(undefined));

  it('when parts of a page read in the same turn, then one batch goes, with the CSRF token, and each part gets its own answer', async () => {
    const server = fakeServer();
    const [box, stats, missing] = await Promise.all([
      server.fetch(get('/v1/svc/boxes/b1')),
      server.fetch(get('/v1/svc/boxes/b1/stats?period=2026-10')),
      server.fetch(get('/v1/svc/boxes/missing')),
    ]);
    expect(server.sent).toEqual([
      {
        url: `${ORIGIN}${BATCH_PATH}`,
        method: 'POST',
        body: {
          requests: [
            { path: '/v1/svc/boxes/b1' },
            { path: '/v1/svc/boxes/b1/stats?period=2026-10' },
            { path: '/v1/svc/boxes/missing' },
          ],
        },
        csrf: 'csrf-1',
      },
    ]);
    expect(box?.status).toBe(200);
    expect(await box?.json()).toEqual({ data: { path: '/v1/svc/boxes/b1' } });
    expect(await stats?.json()).toEqual({ data: { path: '/v1/svc/boxes/b1/stats?period=2026-10' } });
    expect(missing?.status).toBe(404);
    expect(((await missing?.json()) as { error: { code: string } }).error.code).toBe('NOT_FOUND');
  });

  it('when a read is alone in its turn, or is a write, or is no read of the public API, then it goes as it is', async () => {
    const server = fakeServer();
    await server.fetch(get('/v1/svc/boxes/b1'));
    await Promise.all([
      server.fetch(new Request(`${ORIGIN}/v1/svc/boxes`, { method: 'POST', body: '{}' })),
      server.fetch(get('/dashboard/api/keys')),
      server.fetch(get('/v1/svc/openapi.json')),
    ]);
    expect(server.sent.map((sent) => `${sent.method} ${new URL(sent.url).pathname}`).sort()).toEqual([
      'GET /dashboard/api/keys',
      'GET /v1/svc/boxes/b1',
      'GET /v1/svc/openapi.json',
      'POST /v1/svc/boxes',
    ]);
  });

  it('when the session is not read yet (no CSRF token), then reads go alone rather than be refused', async () => {
    setCsrfToken(undefined);
    const server = fakeServer();
    await Promise.all([server.fetch(get('/v1/svc/claims')), server.fetch(get('/v1/svc/boxes'))]);
    expect(server.sent.map((sent) => sent.method)).toEqual(['GET', 'GET']);
  });

  it(`when a turn asks for more than ${MAX_BATCH_READS} reads, then they go in batches of at most ${MAX_BATCH_READS}`, async () => {
    const server = fakeServer();
    const answers = await Promise.all(
      Array.from({ length: MAX_BATCH_READS + 3 }, (_, i) => server.fetch(get(`/v1/svc/boxes/b${i}`))),
    );
    expect(server.sent.map((sent) => (sent.body as { requests: unknown[] }).requests.length)).toEqual([
      MAX_BATCH_READS,
      3,
    ]);
    expect(await answers[MAX_BATCH_READS + 2]?.json()).toEqual({
      data: { path: `/v1/svc/boxes/b${MAX_BATCH_READS + 2}` },
    });
  });

  it('when the batch is refused whole (a spent budget), then every read gets that refusal with its Retry-After', async () => {
    const refusal = { error: { code: 'RATE_LIMITED', message: 'Rate limit exceeded' } };
    const server = fakeServer(() =>
      Response.json(refusal, { status: 429, headers: { 'Retry-After': '17' } }),
    );
    const answers = await Promise.all([
      server.fetch(get('/v1/svc/claims')),
      server.fetch(get('/v1/svc/boxes')),
    ]);
    for (const answer of answers) {
      expect(answer?.status).toBe(429);
      expect(answer?.headers.get('Retry-After')).toBe('17');
      expect(await answer?.json()).toEqual(refusal);
    }
  });
});
