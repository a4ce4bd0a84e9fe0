import { retryAfterMs } from './errors';

export interface RetryOptions {
  /** Retries after the first attempt (429, 503, a failed connection); default 3, 0 turns retrying off. */
  maxRetries?: number;
  /** The longest wait the SDK accepts; a longer `Retry-After` is handed back as is. Default 30 s. */
  maxDelayMs?: number;
  /** The wait when the answer names none: doubled per attempt, from this. Default 500 ms. */
  baseDelayMs?: number;
}

export interface TransportOptions extends RetryOptions {
  /** The fetch to send with; default `globalThis.fetch`. */
  fetch?: (request: Request) => Promise<Response>;
  /** Waits `ms` (tests make it instant). */
  sleep?: (ms: number) => Promise<void>;
  /** Milliseconds since the epoch, to read a `Retry-After` date. */
  now?: () => number;
  /** A fresh Idempotency-Key; default `crypto.randomUUID()`. */
  newIdempotencyKey?: () => string;
}

const WRITES = new Set(['POST', 'PATCH', 'DELETE', 'PUT']);
const RETRIED_STATUSES = new Set([429, 503]);

/**
 * A fetch that gives every write an `Idempotency-Key` (unless the caller set one) and sends the
 * same request again, with the same key, after a 429 or a 503 (waiting its `Retry-After`) or a
 * failed connection. The key makes a retried write run at most once (docs/spec/contracts.md §7):
 * a retry after a lost answer gets the first answer back, `Idempotent-Replayed: true`.
 */
export function retryingFetch(options: TransportOptions = {}): (request: Request) => Promise<Response> {
  const send = options.fetch ?? ((request: Request) => globalThis.fetch(request));
  const sleep = options.sleep ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  const now = options.now ?? (() => new Date().getTime());
  const newKey = options.newIdempotencyKey ?? (() => globalThis.crypto.randomUUID());
  const maxRetries = options.maxRetries ?? 3;
  const maxDelayMs = options.maxDelayMs ?? 30_000;
  const baseDelayMs = options.baseDelayMs ?? 500;

  return async (original: Request): Promise<Response> => {
    let request = original;
    if (WRITES.has(request.method) && !request.headers.has('idempotency-key')) {
      const headers = new Headers(request.headers);
      headers.set('Idempotency-Key', newKey());
      request = new Request(request, { headers });
    }
    for (let attempt = 0; ; attempt += 1) {
      // A body can be read once: each attempt sends a copy.
      const last = attempt >= maxRetries;
      const sent = last ? request : request.clone();
      let response: Response;
      try {
        response = await send(sent);
      } catch (err) {
        if (last || isAbort(err)) throw err;
        await sleep(backoff(baseDelayMs, attempt, maxDelayMs));
        continue;
      }
      if (last || !RETRIED_STATUSES.has(response.status)) return response;
      const wait = retryAfterMs(response.headers, now) ?? backoff(baseDelayMs, attempt, maxDelayMs);
      if (wait > maxDelayMs) return response;
      // The answer is dropped: release its connection.
      await response.body?.cancel().catch(() => undefined);
      await sleep(wait);
    }
  };
}

function backoff(baseDelayMs: number, attempt: number, maxDelayMs: number): number {
  return Math.min(maxDelayMs, baseDelayMs * 2 ** attempt);
}

function isAbort(err: unknown): boolean {
  return err instanceof Error && (err.name === 'AbortError' || err.name === 'TimeoutError');
}
