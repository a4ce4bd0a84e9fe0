import createClient, { type Client, type ClientOptions, type FetchOptions } from 'openapi-fetch';
import { errorOf } from './errors';
import type { paths } from './schema.generated';
import { retryingFetch, type RetryOptions, type TransportOptions } from './transport';

export interface SvcClientOptions extends RetryOptions {
  /** Where the gateway answers, e.g. `http://127.0.0.1:8080`. */
  baseUrl: string;
  /** `svc_test_…` / `svc_live_…` (or the operator token for `/admin`): sent as `Authorization: Bearer`. */
  apiKey?: string;
  /** Headers sent with every request. */
  headers?: Record<string, string>;
  /** The fetch to send with (default `globalThis.fetch`). */
  fetch?: (request: Request) => Promise<Response>;
  /** For tests: waiting, the clock, new idempotency keys. */
  transport?: Pick<TransportOptions, 'sleep' | 'now' | 'newIdempotencyKey'>;
}

/** The openapi-fetch client of every operation of the document (`GET`, `POST`, `PATCH`, `DELETE`, …). */
export type SvcClient = Client<paths>;

/**
 * A typed client: every path, parameter, body and answer comes from the generated document.
 * Calls return openapi-fetch's `{data, error, response}` (pass them to `unwrap` to get the data or
 * a typed `ApiError`); writes carry an Idempotency-Key, and 429/503 are retried after `Retry-After`.
 */
export function createSvcClient(options: SvcClientOptions): SvcClient {
  const headers: Record<string, string> = { ...options.headers };
  if (options.apiKey !== undefined) headers.Authorization = `Bearer ${options.apiKey}`;
  const clientOptions: ClientOptions = {
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers,
    fetch: retryingFetch({
      ...options.transport,
      ...(options.fetch === undefined ? {} : { fetch: options.fetch }),
      ...(options.maxRetries === undefined ? {} : { maxRetries: options.maxRetries }),
      ...(options.maxDelayMs === undefined ? {} : { maxDelayMs: options.maxDelayMs }),
      ...(options.baseDelayMs === undefined ? {} : { baseDelayMs: options.baseDelayMs }),
    }),
  };
  return createClient<paths>(clientOptions);
}

/** What an openapi-fetch call resolves to. */
export interface CallResult {
  data?: unknown;
  error?: unknown;
  response: Response;
}

/** The data of a successful call of `R`. */
export type DataOf<R extends CallResult> = Exclude<R['data'], undefined>;

/**
 * The data of a successful call; otherwise throws an `ApiError` (the error envelope, with its
 * closed code) or an `UnexpectedResponseError`.
 *
 *     const claim = await unwrap(svc.POST('/v1/svc/claims', { body }));
 */
export async function unwrap<R extends CallResult>(call: R | Promise<R>): Promise<DataOf<R>> {
  const result = await call;
  if (result.response.ok) return result.data as DataOf<R>;
  throw errorOf(result.response.status, result.error, result.response.headers);
}

type JsonOf<R> = R extends { content: { 'application/json': infer B } } ? B : never;

/** The methods of a path item: `'get' | 'post' | 'put' | 'patch' | 'delete'`. */
export type Method = 'get' | 'post' | 'put' | 'patch' | 'delete';

/**
 * The JSON body `method` on `path` takes, to build one apart from the call (a helper's parameter):
 * `RequestBody<'/v1/svc/boxes', 'post'>`. `never` when the operation takes none.
 */
export type RequestBody<P extends keyof paths, M extends Method> = paths[P][M] extends {
  requestBody?: infer B;
}
  ? JsonOf<NonNullable<B>>
  : never;

/**
 * The JSON answer of a successful `method` on `path`, what `unwrap` returns: every 2xx the
 * document declares (`ResponseBody<'/v1/svc/licenses/{id}/renew', 'post'>` is the renewal, 200,
 * or the upgrade waiting for review, 202).
 */
export type ResponseBody<P extends keyof paths, M extends Method> = paths[P][M] extends {
  responses: infer R;
}
  ? JsonOf<R[Extract<keyof R, 200 | 201 | 202 | 203 | 206>]>
  : never;
type OkBody<P extends keyof paths> = paths[P] extends { get: { responses: { 200: infer R } } }
  ? JsonOf<R>
  : never;

/** The paths whose GET answers a page: `{data: T[], meta: {total, limit, offset}}`. */
export type ListPath = {
  [P in keyof paths]: OkBody<P> extends { data: unknown[]; meta: { total: number } } ? P : never;
}[keyof paths];

/** The item type of a list path. */
export type ListItem<P extends ListPath> = OkBody<P> extends { data: (infer I)[] } ? I : never;

type ListInit<P extends ListPath> = paths[P] extends { get: infer O } ? FetchOptions<O> : never;

/**
 * Every item of a list, page after page (`limit` = `pageSize`, default 100, the largest the API
 * allows; `offset` moves on until `meta.total`). Other query parameters pass through.
 *
 *     for await (const box of paginate(svc, '/v1/svc/boxes', { params: { query: { policy: 'MONETIZE' } } })) …
 */
export async function* paginate<P extends ListPath>(
  client: SvcClient,
  path: P,
  init?: ListInit<P>,
  options: { pageSize?: number } = {},
): AsyncGenerator<ListItem<P>, void, undefined> {
  const params = (init as { params?: { query?: Record<string, unknown> } } | undefined)?.params;
  const pageSize = options.pageSize ?? 100;
  let offset = Number(params?.query?.offset ?? 0);
  const get = client.GET as unknown as (path: string, init: unknown) => Promise<CallResult>;
  for (;;) {
    const page = (await unwrap(
      get(path, { ...init, params: { ...params, query: { ...params?.query, limit: pageSize, offset } } }),
    )) as { data: ListItem<P>[]; meta: { total: number } };
    for (const item of page.data) yield item;
    offset += page.data.length;
    if (page.data.length === 0 || offset >= page.meta.total) return;
  }
}
