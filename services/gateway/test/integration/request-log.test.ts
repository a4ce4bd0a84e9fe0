import { waitFor } from '@svc/test-kit';
import { ECHO_ROUTES, startEchoService, startHarness, type Harness } from '../fixtures/gateway-harness';

// Request logs (#32): each key's requests, as its platform's developers see them in the dashboard,
// written by the replica every second rather than on the request's path.
let h: Harness;
let echo: Awaited<ReturnType<typeof startEchoService>>;

beforeAll(async () => {
  echo = await startEchoService();
  h = await startHarness({ routes: ECHO_ROUTES, serviceUrls: { REGISTRY_URL: echo.url } });
});
afterAll(async () => {
  await h.stop();
  await echo.service.stop();
});

interface Entry {
  at: string;
  keyId: string;
  method: string;
  path: string;
  operation: string | null;
  status: number;
  latencyMs: number;
  requestId: string;
}

async function issuedKey(headers: Record<string, string>) {
  const res = await h.call(undefined, 'POST', '/dashboard/api/keys', { name: 'Logged' }, headers);
  expect(res.status).toBe(201);
  return res.body.data as { id: string; key: string };
}

const logs = async (headers: Record<string, string>, query = '') =>
  (await h.call(undefined, 'GET', `/dashboard/api/request-logs${query}`, undefined, headers)).body as {
    data: Entry[];
    meta: { total: number };
  };

describe('the request log', () => {
  it('when a key makes requests, then its platform sees each one (time, operation, status, latency, request id), newest first, findable by request id and status class', async () => {
    const { headers } = await h.session('platform');
    const key = await issuedKey(headers);
    const ok = await h.call(key.key, 'GET', '/v1/svc/echo/a?secret=not-logged');
    const missing = await h.call(key.key, 'GET', '/v1/svc/no-such-path');
    const failed = await h.call(key.key, 'POST', '/v1/svc/fail', {});
    expect([ok.status, missing.status, failed.status]).toEqual([200, 404, 503]);

    const all = await waitFor(
      async () => {
        const read = await logs(headers);
        return read.meta.total === 3 ? read : undefined;
      },
      { what: 'three requests in the log', timeoutMs: 10_000 },
    );
    expect(
      all.data.map(({ method, path, operation, status, keyId }) => ({
        method,
        path,
        operation,
        status,
        keyId,
      })),
    ).toEqual([
      { method: 'POST', path: '/v1/svc/fail', operation: 'fail', status: 503, keyId: key.id },
      { method: 'GET', path: '/v1/svc/no-such-path', operation: null, status: 404, keyId: key.id },
      { method: 'GET', path: '/v1/svc/echo/a', operation: 'echo', status: 200, keyId: key.id },
    ]);
    expect(all.data[2]?.requestId).toBe(ok.headers.get('x-request-id'));
    expect(all.data.every((entry) => entry.latencyMs >= 0 && !Number.isNaN(Date.parse(entry.at)))).toBe(true);

    const found = await logs(
      headers,
      `?requestId=${encodeURIComponent(ok.headers.get('x-request-id') ?? '')}`,
    );
    expect(found.data.map((entry) => entry.path)).toEqual(['/v1/svc/echo/a']);
    expect((await logs(headers, '?status=4xx')).data.map((entry) => entry.status)).toEqual([404]);
    expect((await logs(headers, '?status=5xx')).data.map((entry) => entry.status)).toEqual([503]);
    expect((await logs(headers, `?keyId=${key.id}&limit=1`)).data).toHaveLength(1);
  });

  it('when the client gives up before the answer, then the request is logged all the same, with status 499', async () => {
    const { headers } = await h.session('platform');
    const key = await issuedKey(headers);
    const controller = new AbortController();
    const call = fetch(`${h.url}/v1/svc/echo-slow`, {
      headers: { authorization: `Bearer ${key.key}` },
      signal: controller.signal,
    });
    setTimeout(() => controller.abort(), 200);
    await expect(call).rejects.toThrow();
    const read = await waitFor(
      async () => {
        const found = await logs(headers);
        return found.meta.total === 1 ? found : undefined;
      },
      { what: 'the abandoned request in the log', timeoutMs: 10_000 },
    );
    expect(read.data[0]).toMatchObject({ path: '/v1/svc/echo-slow', operation: 'echoSlow', status: 499 });
    expect(read.data[0]?.latencyMs).toBeLessThan(1500);
    expect((await logs(headers, '?status=4xx')).meta.total).toBe(1);
  });

  it("when another platform, a dashboard call or a bad query asks, then it sees none of this platform's requests, is not logged, or is refused on the field", async () => {
    const owner = await h.session('platform');
    const key = await issuedKey(owner.headers);
    const res = await h.call(key.key, 'GET', '/v1/svc/echo/b');
    // The session's own call to the public API: not a key's request, not logged.
    await h.call(undefined, 'GET', '/v1/svc/echo/c', undefined, owner.headers);
    await waitFor(async () => ((await logs(owner.headers)).meta.total === 1 ? true : undefined), {
      what: 'the key request in the log',
      timeoutMs: 10_000,
    });
    expect((await logs(owner.headers)).data.map((entry) => entry.requestId)).toEqual([
      res.headers.get('x-request-id'),
    ]);

    const other = await h.session('platform');
    expect((await logs(other.headers)).meta.total).toBe(0);
    expect(
      (await logs(other.headers, `?requestId=${encodeURIComponent(res.headers.get('x-request-id') ?? '')}`))
        .meta.total,
    ).toBe(0);
    const bad = await h.call(
      undefined,
      'GET',
      '/dashboard/api/request-logs?status=3xx',
      undefined,
      other.headers,
    );
    expect(bad.status).toBe(400);
    expect(bad.body.error.details.fields[0].field).toBe('query.status');
    expect((await h.call(undefined, 'GET', '/dashboard/api/request-logs')).status).toBe(401);
  });
});
