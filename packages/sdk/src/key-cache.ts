import type { JWKS } from './credential-model';
import { isRecord, withoutTrailingSlash } from './jws-parsing';
import { unverifiedTtlSeconds } from './credential-claims';

// An issuer's key set and status lists, fetched once each and kept for their max-age.

/** What `createKeyCache` keeps: the issuer's key set and its status lists, fetched once each. */
export interface KeyCache {
  /** The issuer's base URL, without a trailing slash; credentials must name it as `iss`. */
  readonly issuer: string;
  /** The key set, fetched when absent or older than its max-age. */
  keys(): Promise<JWKS>;
  /**
   * The key set fetched again (a credential named a key the cached set does not have), unless
   * fetched in the last 30 seconds: credentials naming unknown keys cannot make it hammer the issuer.
   */
  refreshKeys(): Promise<JWKS>;
  /** The status list JWT at `uri`, fetched when absent or older than its max-age. */
  statusList(uri: string): Promise<string>;
}

export interface KeyCacheOptions {
  /** The fetch to use (default: the global one). */
  fetch?: typeof fetch;
  /** The longest anything is kept (default 10 minutes); a shorter `Cache-Control: max-age` or list `ttl` wins. */
  maxAgeMs?: number;
  /** Clock for ages, in milliseconds (default `Date.now`). */
  now?: () => number;
}

/**
 * A cache of an issuer's key set (`<issuerBaseUrl>/.well-known/jwks.json`) and status lists:
 * each is fetched once and kept for its max-age, so checks in between need no network.
 */
export function createKeyCache(issuerBaseUrl: string, options: KeyCacheOptions = {}): KeyCache {
  const issuer = withoutTrailingSlash(issuerBaseUrl);
  const fetchFn = options.fetch ?? ((input, init) => fetch(input, init));
  const clock = options.now ?? Date.now;
  const maxAgeMs = options.maxAgeMs ?? 10 * 60_000;
  const entries = new Map<string, { value: Promise<unknown>; until: number; fetchedAt: number }>();

  /** `url`'s kept value while fresh, else loaded anew; `refreshAfterMs` forces a load once older than that. */
  function kept<T>(
    url: string,
    load: () => Promise<{ value: T; maxAgeMs: number }>,
    refreshAfterMs?: number,
  ): Promise<T> {
    const entry = entries.get(url);
    const now = clock();
    const fresh =
      entry !== undefined &&
      (refreshAfterMs === undefined ? entry.until > now : now - entry.fetchedAt < refreshAfterMs);
    if (entry !== undefined && fresh) return entry.value as Promise<T>;
    const loading = load().then(({ value, maxAgeMs: age }) => {
      const at = clock();
      entries.set(url, { value: Promise.resolve(value), until: at + Math.min(age, maxAgeMs), fetchedAt: at });
      return value;
    });
    // Concurrent callers share the request; a failed one is not kept.
    entries.set(url, { value: loading, until: Number.POSITIVE_INFINITY, fetchedAt: now });
    loading.catch(() => {
      if (entries.get(url)?.value === loading) entries.delete(url);
    });
    return loading;
  }

  async function get(url: string, accept: string): Promise<{ body: string; maxAgeMs: number }> {
    const response = await fetchFn(url, { headers: { accept } });
    if (!response.ok) throw new Error(`GET ${url} answered ${response.status}`);
    const body = await response.text();
    const maxAge = /(?:^|,)\s*max-age=(\d+)/i.exec(response.headers.get('cache-control') ?? '')?.[1];
    return { body, maxAgeMs: maxAge === undefined ? maxAgeMs : Number(maxAge) * 1000 };
  }

  const jwksUrl = `${issuer}/.well-known/jwks.json`;
  async function loadKeys(): Promise<{ value: JWKS; maxAgeMs: number }> {
    const { body, maxAgeMs: age } = await get(jwksUrl, 'application/json');
    const value = JSON.parse(body) as unknown;
    if (!isRecord(value) || !Array.isArray(value.keys)) throw new Error(`${jwksUrl} is not a key set`);
    return { value: value as unknown as JWKS, maxAgeMs: age };
  }

  return {
    issuer,
    keys: () => kept(jwksUrl, loadKeys),
    refreshKeys: () => kept(jwksUrl, loadKeys, 30_000),
    statusList: (uri) =>
      kept(uri, async () => {
        const { body, maxAgeMs: age } = await get(uri, 'application/statuslist+jwt');
        const jwt = body.trim();
        const ttl = unverifiedTtlSeconds(jwt);
        return { value: jwt, maxAgeMs: ttl === undefined ? age : Math.min(age, ttl * 1000) };
      }),
  };
}
