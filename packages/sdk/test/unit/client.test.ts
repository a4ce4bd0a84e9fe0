import {
  ApiError,
  createSvcClient,
  isApiError,
  paginate,
  unwrap,
  UnexpectedResponseError,
  type operations,
  type RequestBody,
  type ResponseBody,
} from '../../src';

/** True only when A and B are the same type (either way). */
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
type RenewAnswers = operations['renewLicense']['responses'];

interface Seen {
  method: string;
  url: string;
  idempotencyKey: string | null;
  authorization: string | null;
  body: string;
}

/** A fake API: answers each request with the next of `answers`, recording what it was sent. */
function fakeApi(answers: (() => Response)[]) {
  const seen: Seen[] = [];
  const waits: number[] = [];
  let keys = 0;
  const client = createSvcClient({
    baseUrl: 'http://api.test/',
    apiKey: 'svc_test_abc',
    fetch: async (request) => {
      seen.push({
        method: request.method,
        url: request.url,
        idempotencyKey: request.headers.get('idempotency-key'),
        authorization: request.headers.get('authorization'),
        body: await request.text(),
      });
      const next = answers.shift();
      if (next === undefined) throw new Error('no answer left');
      return next();
    },
    transport: {
      sleep: async (ms) => {
        waits.push(ms);
      },
      now: () => Date.parse('2026-11-27T12:00:00Z'),
      newIdempotencyKey: () => `key-${++keys}`,
    },
  });
  return { client, seen, waits };
}

const json =
  (status: number, body: unknown, headers: Record<string, string> = {}) =>
  () =>
    new Response(JSON.stringify(body), {
      status,
      headers: { 'content-type': 'application/json', ...headers },
    });

const rateLimited = (retryAfter: string) =>
  json(
    429,
    { error: { code: 'RATE_LIMITED', message: 'Too many requests', details: { retryAfter: 2 } } },
    { 'retry-after': retryAfter, 'x-request-id': 'req-1' },
  );

const claimBody = {
  name: 'Ada Lovelace',
  entityType: 'INDIVIDUAL' as const,
  referenceImages: [{ url: 'https://example.com/ada.jpg', isPrimary: true }],
};

describe('the SDK client', () => {
  it('when a POST is answered 429 then 201, then it waits Retry-After and sends the same Idempotency-Key again', async () => {
    const { client, seen, waits } = fakeApi([rateLimited('2'), json(201, { data: { id: 'claim_1' } })]);
    const created = await unwrap(client.POST('/v1/svc/claims', { body: claimBody }));
    expect(created).toEqual({ data: { id: 'claim_1' } });
    expect(waits).toEqual([2000]);
    expect(seen.map((s) => s.idempotencyKey)).toEqual(['key-1', 'key-1']);
    expect(seen[0]!.url).toBe('http://api.test/v1/svc/claims');
    expect(seen[0]!.authorization).toBe('Bearer svc_test_abc');
    expect(JSON.parse(seen[1]!.body)).toEqual(claimBody);
  });

  it('when each write is sent, then each gets its own key and a caller-given key is kept', async () => {
    const { client, seen } = fakeApi([
      json(201, { data: {} }),
      json(201, { data: {} }),
      json(201, { data: {} }),
    ]);
    await client.POST('/v1/svc/claims', { body: claimBody });
    await client.POST('/v1/svc/claims', { body: claimBody });
    await client.POST('/v1/svc/claims', { body: claimBody, headers: { 'Idempotency-Key': 'mine' } });
    expect(seen.map((s) => s.idempotencyKey)).toEqual(['key-1', 'key-2', 'mine']);
  });

  it('when a GET is sent, then it carries no Idempotency-Key', async () => {
    const { client, seen } = fakeApi([json(200, { data: [], meta: { total: 0, limit: 20, offset: 0 } })]);
    await client.GET('/v1/svc/claims');
    expect(seen[0]!.idempotencyKey).toBeNull();
  });

  it('when 503 keeps coming, then it gives up after maxRetries and throws the typed error', async () => {
    const unavailable = json(
      503,
      { error: { code: 'SERVICE_UNAVAILABLE', message: 'registry is unavailable' } },
      { 'retry-after': '1' },
    );
    const { client, seen, waits } = fakeApi([unavailable, unavailable, unavailable, unavailable]);
    const err = await unwrap(client.GET('/v1/svc/claims')).catch((e: unknown) => e);
    expect(isApiError(err, 'SERVICE_UNAVAILABLE')).toBe(true);
    expect((err as ApiError).status).toBe(503);
    expect((err as ApiError).retryAfterSeconds).toBe(1);
    expect(seen).toHaveLength(4);
    expect(waits).toEqual([1000, 1000, 1000]);
  });

  it('when Retry-After is a date, then it waits until then', async () => {
    const { client, waits } = fakeApi([
      rateLimited('Fri, 27 Nov 2026 12:00:05 GMT'),
      json(200, { data: [] }),
    ]);
    await client.GET('/v1/svc/claims');
    expect(waits).toEqual([5000]);
  });

  it('when a 429 has no Retry-After, then it waits details.retryAfter, or 60 s (the interface’s rule)', async () => {
    const noHeader = (details: unknown) =>
      json(429, { error: { code: 'RATE_LIMITED', message: 'Too many requests', details } });
    const { client, waits } = fakeApi([noHeader({ retryAfter: 7 }), json(200, { data: [] })]);
    await client.GET('/v1/svc/claims');
    expect(waits).toEqual([7000]);
    const bare = fakeApi([noHeader(undefined)]);
    const answer = await bare.client.GET('/v1/svc/claims');
    // 60 s is over the default maxDelayMs (30 s): the 429 is handed back instead of waited for.
    expect(answer.response.status).toBe(429);
    expect(bare.waits).toEqual([]);
  });

  it('when Retry-After is longer than maxDelayMs, then the 429 comes back at once', async () => {
    const { client, seen } = fakeApi([rateLimited('3600')]);
    const err = await unwrap(client.GET('/v1/svc/claims')).catch((e: unknown) => e);
    expect(isApiError(err, 'RATE_LIMITED')).toBe(true);
    expect((err as ApiError).requestId).toBe('req-1');
    expect((err as ApiError<'RATE_LIMITED'>).details).toEqual({ retryAfter: 2 });
    expect(seen).toHaveLength(1);
  });

  it('when the connection fails, then the write is sent again with the same key', async () => {
    const { client, seen } = fakeApi([
      () => {
        throw new TypeError('fetch failed');
      },
      json(201, { data: { id: 'claim_1' } }),
    ]);
    await unwrap(client.POST('/v1/svc/claims', { body: claimBody }));
    expect(seen.map((s) => s.idempotencyKey)).toEqual(['key-1', 'key-1']);
  });

  it('when a 4xx is answered, then it is not retried and unwrap throws ApiError with its code', async () => {
    const { client, seen } = fakeApi([
      json(409, { error: { code: 'IDEMPOTENCY_CONFLICT', message: 'key reused with another body' } }),
    ]);
    const err = await unwrap(client.POST('/v1/svc/claims', { body: claimBody })).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ApiError);
    expect((err as ApiError).code).toBe('IDEMPOTENCY_CONFLICT');
    expect(seen).toHaveLength(1);
  });

  it('when a VALIDATION_ERROR names bad fields, then ApiError.fields lists them typed, and other errors have none', async () => {
    const { client } = fakeApi([
      json(400, {
        error: {
          code: 'VALIDATION_ERROR',
          message: 'Invalid body: metrics.subscribers: Expected integer',
          details: {
            fields: [
              { field: 'metrics.subscribers', message: 'Expected integer' },
              { field: 'period', message: 'Required' },
              { nonsense: true },
            ],
          },
        },
      }),
      json(409, { error: { code: 'INVALID_STATE', message: 'not active', details: { licenseId: 'lic_1' } } }),
    ]);
    const invalid = await unwrap(client.POST('/v1/svc/claims', { body: claimBody })).catch((e: unknown) => e);
    expect((invalid as ApiError).fields).toEqual([
      { field: 'metrics.subscribers', message: 'Expected integer' },
      { field: 'period', message: 'Required' },
    ]);
    const conflict = await unwrap(client.POST('/v1/svc/claims', { body: claimBody })).catch(
      (e: unknown) => e,
    );
    expect((conflict as ApiError).fields).toEqual([]);
  });

  it("when a body is built apart from its call (RequestBody), then it is the operation's own type and is sent as is; ResponseBody is what unwrap returns", async () => {
    // Type-level: `make check` fails unless both name the document's types.
    const bodyIsTheOperations: Same<
      RequestBody<'/v1/svc/claims', 'post'>,
      NonNullable<operations['createClaim']['requestBody']>['content']['application/json']
    > = true;
    const getTakesNone: Same<RequestBody<'/v1/svc/claims', 'get'>, never> = true;
    const everySuccess: Same<
      ResponseBody<'/v1/svc/licenses/{id}/renew', 'post'>,
      RenewAnswers[200]['content']['application/json'] | RenewAnswers[202]['content']['application/json']
    > = true;
    expect([bodyIsTheOperations, getTakesNone, everySuccess]).toEqual([true, true, true]);

    const { client, seen } = fakeApi([json(201, { data: { id: 'claim_1' } })]);
    const body: RequestBody<'/v1/svc/claims', 'post'> = { ...claimBody, variations: ['Countess'] };
    const created: ResponseBody<'/v1/svc/claims', 'post'> = await unwrap(
      client.POST('/v1/svc/claims', { body }),
    );
    expect(created.data.id).toBe('claim_1');
    expect(JSON.parse(seen[0]!.body)).toEqual({ ...claimBody, variations: ['Countess'] });
  });

  it('when the error body is not the envelope, then unwrap throws UnexpectedResponseError', async () => {
    const { client } = fakeApi([() => new Response('<html>bad gateway</html>', { status: 502 })]);
    const err = await unwrap(client.GET('/v1/svc/claims')).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(UnexpectedResponseError);
    expect((err as UnexpectedResponseError).status).toBe(502);
  });

  it('when a list has three pages, then paginate yields every item once, in order', async () => {
    const page = (ids: string[], offset: number) =>
      json(200, { data: ids.map((id) => ({ id })), meta: { total: 5, limit: 2, offset } });
    const { client, seen } = fakeApi([page(['a', 'b'], 0), page(['c', 'd'], 2), page(['e'], 4)]);
    const ids: string[] = [];
    for await (const claim of paginate(
      client,
      '/v1/svc/claims',
      { params: { query: { status: 'verified' } } },
      { pageSize: 2 },
    )) {
      ids.push(claim.id);
    }
    expect(ids).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(seen.map((s) => new URL(s.url).search)).toEqual([
      '?status=verified&limit=2&offset=0',
      '?status=verified&limit=2&offset=2',
      '?status=verified&limit=2&offset=4',
    ]);
  });
});
