import createClient, { type Middleware } from 'openapi-fetch';
import type { paths } from '@svc/sdk';
import { batchingFetch } from './batch';
import { apiErrorOf, currentCsrfToken } from './http';

// The typed client: every path, parameter, body and answer comes from the types packages/sdk
// generates from the served OpenAPI document, so a changed operation is a type error here.
// Same origin, the session cookie; the session's CSRF token on every state-changing call. Reads
// asked in the same turn go together as one batch (./batch.ts).

const csrf: Middleware = {
  onRequest({ request }) {
    const token = currentCsrfToken();
    if (!['GET', 'HEAD'].includes(request.method) && token !== undefined) {
      request.headers.set('X-CSRF-Token', token);
    }
    return request;
  },
};

export const api = createClient<paths>({
  baseUrl: window.location.origin,
  credentials: 'same-origin',
  fetch: batchingFetch((input, init) => globalThis.fetch(input, init), window.location.origin),
});
api.use(csrf);

/** The data of a successful call, or the API's error as an ApiError (code, message, fields). */
export async function unwrap<D>(
  call: Promise<{ data?: D; error?: unknown; response: Response }>,
): Promise<D> {
  const result = await call;
  if (result.response.ok) return result.data as D;
  throw apiErrorOf(result.response.status, result.error, result.response.headers.get('Retry-After'));
}

/** A new Idempotency-Key for one user action (a retried click sends the same one). */
export function idempotencyKey(): string {
  return crypto.randomUUID();
}
