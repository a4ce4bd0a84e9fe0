import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { isIP, type LookupFunction } from 'node:net';
import { Agent, request, type Dispatcher } from 'undici';
import { blockedReason } from './address-policy';
import { FetchGuardError, isFetchGuardError } from './fetch-guard-error';

export interface GuardedFetchOptions {
  method?: string;
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** One deadline for the whole exchange, redirects and body included. Default 5000. */
  timeoutMs?: number;
  /** The response body is refused past this many bytes (checked while streaming). Default 10 MB. */
  maxBytes?: number;
  /** Default 3. With 0 a redirect answer is refused as `too_many_redirects`. */
  maxRedirects?: number;
  /** Development and tests only (SVC_ALLOW_PRIVATE_FETCH). Default false. */
  allowPrivate?: boolean;
  /** Default ['http', 'https']. */
  schemes?: string[];
  /**
   * Test seam: why an address is refused (null: allowed). Default `blockedReason`. Tests use it
   * to let a first local hop through and refuse the next one.
   */
  addressPolicy?: (address: string) => string | null;
}

export interface GuardedResponse {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: Buffer;
  /** The URL that answered, after redirects. */
  finalUrl: string;
}

export const DEFAULT_TIMEOUT_MS = 5000;
export const DEFAULT_MAX_BYTES = 10 * 1024 * 1024;
export const DEFAULT_MAX_REDIRECTS = 3;

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/**
 * A DNS lookup that refuses private addresses. It runs inside the connect of every new socket,
 * so the address checked is the address connected to: a DNS answer that changes between a check
 * and the connect (rebinding) cannot slip through.
 */
function lookupWith(policy: (address: string) => string | null): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true }, (err, addresses: LookupAddress[]) => {
      if (err !== null) {
        callback(err, '', 0);
        return;
      }
      const refused = addresses.map((a) => ({ a, reason: policy(a.address) })).find((x) => x.reason);
      if (refused !== undefined || addresses.length === 0) {
        const error = new FetchGuardError(
          'private_address',
          `${hostname} resolves to a refused address (${refused?.reason ?? 'none'})`,
        );
        callback(error as NodeJS.ErrnoException, '', 0);
        return;
      }
      if (options.all === true) callback(null, addresses);
      else callback(null, addresses[0]?.address ?? '', addresses[0]?.family ?? 4);
    });
  };
}
const guardedLookup = lookupWith(blockedReason);

// One pool per policy, shared by every call: sockets are reused per origin and were checked
// when they were opened.
let guardedAgent: Agent | undefined;
let openAgent: Agent | undefined;
function agentFor(
  allowPrivate: boolean,
  policy: ((address: string) => string | null) | undefined,
): Dispatcher {
  if (!allowPrivate && policy !== undefined) {
    return new Agent({ pipelining: 0, connect: { lookup: lookupWith(policy) } });
  }
  if (allowPrivate) {
    openAgent ??= new Agent({ keepAliveTimeout: 4000 });
    return openAgent;
  }
  guardedAgent ??= new Agent({ keepAliveTimeout: 4000, connect: { lookup: guardedLookup } });
  return guardedAgent;
}

/** Destroys the shared connection pools (graceful shutdown, tests). A later fetch opens new ones. */
export async function closeGuardedAgents(): Promise<void> {
  const agents = [guardedAgent, openAgent];
  guardedAgent = undefined;
  openAgent = undefined;
  await Promise.all(agents.map((agent) => agent?.destroy()));
}

function parseUrl(raw: string): URL {
  try {
    return new URL(raw);
  } catch (cause) {
    throw new FetchGuardError('invalid_url', 'not an absolute URL', { cause });
  }
}

function checkSyntax(
  url: URL,
  schemes: string[],
  allowPrivate: boolean,
  policy: (address: string) => string | null = blockedReason,
): void {
  const scheme = url.protocol.replace(/:$/, '');
  if (!schemes.includes(scheme)) {
    throw new FetchGuardError('scheme', `scheme ${scheme} is not allowed (allowed: ${schemes.join(', ')})`);
  }
  if (url.hostname === '') throw new FetchGuardError('invalid_url', 'the URL has no host');
  if (allowPrivate) return;
  // An IP literal never goes through DNS, so the connect-time lookup would not see it: check it here.
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (isIP(host) !== 0) {
    const reason = policy(host);
    if (reason !== null) throw new FetchGuardError('private_address', `${host} is refused (${reason})`);
  }
}

/**
 * Checks a URL without fetching it: syntax, scheme, and (unless `allowPrivate`) that the host
 * resolves only to public addresses. For registering a URL that is fetched later; the fetch
 * itself checks again at connect time.
 */
export async function checkUrl(
  raw: string,
  options: { allowPrivate?: boolean; schemes?: string[] } = {},
): Promise<URL> {
  const allowPrivate = options.allowPrivate ?? false;
  const url = parseUrl(raw);
  checkSyntax(url, options.schemes ?? ['http', 'https'], allowPrivate);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (allowPrivate || isIP(host) !== 0) return url;
  await new Promise<void>((resolve, reject) => {
    guardedLookup(host, { all: true }, (err) => {
      if (err === null) resolve();
      else if (isFetchGuardError(err)) reject(err);
      else reject(new FetchGuardError('unreachable', `${host} does not resolve`, { cause: err }));
    });
  });
  return url;
}

function guardErrorOf(err: unknown): FetchGuardError | undefined {
  for (let current: unknown = err, depth = 0; current !== undefined && depth < 5; depth += 1) {
    if (isFetchGuardError(current)) return current;
    current = current instanceof Error ? current.cause : undefined;
  }
  return undefined;
}

/** Drops a response body without reading it (the abort error it emits is expected). */
function discard(body: Dispatcher.ResponseData['body']): void {
  body.on('error', () => undefined);
  body.destroy();
}

async function readLimited(body: Dispatcher.ResponseData['body'], maxBytes: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const buffer = Buffer.isBuffer(chunk) ? chunk : Buffer.from(chunk as Uint8Array);
    size += buffer.length;
    if (size > maxBytes) {
      discard(body);
      throw new FetchGuardError('too_large', `the response is larger than ${maxBytes} bytes`);
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks, size);
}

/**
 * Fetches a URL under the outbound-fetch rules (docs/spec/contracts.md §11): allowed schemes only, no
 * private, loopback, link-local or metadata address (checked on the resolved address at connect
 * time, for every redirect), at most `maxRedirects` redirects, one deadline, and a body limit
 * enforced while streaming. Any HTTP status resolves; a refusal or failure throws FetchGuardError.
 */
export async function guardedFetch(
  rawUrl: string,
  options: GuardedFetchOptions = {},
): Promise<GuardedResponse> {
  const timeoutMs = options.timeoutMs ?? DEFAULT_TIMEOUT_MS;
  const maxBytes = options.maxBytes ?? DEFAULT_MAX_BYTES;
  const maxRedirects = options.maxRedirects ?? DEFAULT_MAX_REDIRECTS;
  const allowPrivate = options.allowPrivate ?? false;
  const schemes = options.schemes ?? ['http', 'https'];
  // Parsed before the deadline timer and the agent exist: a malformed URL throws with nothing to clean up.
  let url = parseUrl(rawUrl);
  const dispatcher = agentFor(allowPrivate, options.addressPolicy);
  // A test policy gets its own agent, closed after the call; the shared ones stay open.
  const ownsDispatcher = !allowPrivate && options.addressPolicy !== undefined;

  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), timeoutMs);
  let method = (options.method ?? 'GET').toUpperCase();
  let body = options.body;
  try {
    for (let redirects = 0; ; redirects += 1) {
      checkSyntax(url, schemes, allowPrivate, options.addressPolicy);
      const response = await request(url, {
        dispatcher,
        method: method as Dispatcher.HttpMethod,
        headers: options.headers ?? {},
        body: body ?? null,
        signal: controller.signal,
      });
      const location = response.headers.location;
      if (REDIRECTS.has(response.statusCode) && typeof location === 'string') {
        discard(response.body);
        if (redirects >= maxRedirects) {
          throw new FetchGuardError('too_many_redirects', `more than ${maxRedirects} redirects`);
        }
        url = parseUrl(new URL(location, url).toString());
        // 303 (and, as browsers do, 301/302 after a POST) continue as a GET without a body.
        if (
          response.statusCode === 303 ||
          ((response.statusCode === 301 || response.statusCode === 302) && method === 'POST')
        ) {
          method = 'GET';
          body = undefined;
        }
        continue;
      }
      const declared = Number(response.headers['content-length']);
      if (Number.isFinite(declared) && declared > maxBytes) {
        discard(response.body);
        throw new FetchGuardError('too_large', `the response declares ${declared} bytes (limit ${maxBytes})`);
      }
      const received = await readLimited(response.body, maxBytes);
      return {
        status: response.statusCode,
        headers: response.headers,
        body: received,
        finalUrl: url.toString(),
      };
    }
  } catch (err) {
    const guard = guardErrorOf(err);
    if (guard !== undefined) throw guard;
    if (controller.signal.aborted) {
      throw new FetchGuardError('timeout', `no complete answer within ${timeoutMs} ms`, { cause: err });
    }
    const message = err instanceof Error ? err.message : String(err);
    throw new FetchGuardError('unreachable', `could not fetch ${url.host}: ${message}`, { cause: err });
  } finally {
    clearTimeout(timer);
    if (ownsDispatcher) void dispatcher.destroy();
  }
}
