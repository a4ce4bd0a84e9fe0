import { nowMs } from './clock';

// The one place the dashboard talks HTTP: same origin, the session cookie, and the session's CSRF
// token on every state-changing call. Errors come back as the API's envelope, field by field.

/** The session's CSRF token, set when the session is read (the cookie itself is HttpOnly). */
let csrfToken: string | undefined;

export function setCsrfToken(token: string | undefined): void {
  csrfToken = token;
}

export function currentCsrfToken(): string | undefined {
  return csrfToken;
}

/** An error answer of the API: its closed code, its message and the message of each bad field. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly fields: Record<string, string>,
    readonly details: unknown,
    /** When to ask again (Retry-After of a 429 or 503), in seconds. */
    readonly retryAfterSeconds?: number,
  ) {
    super(message);
    this.name = 'ApiError';
  }

  /** A spent request budget: the session's own (docs/spec/contracts.md §17) or an operation's extra one. */
  get rateLimited(): boolean {
    return this.code === 'RATE_LIMITED';
  }
}

/** Whole seconds from a Retry-After header (seconds, or an HTTP date), else the error's details.retryAfter. */
function retryAfterOf(header: string | null | undefined, details: unknown): number | undefined {
  if (header !== null && header !== undefined && header !== '') {
    const seconds = Number(header);
    if (Number.isFinite(seconds)) return Math.max(1, Math.ceil(seconds));
    const at = Date.parse(header);
    if (Number.isFinite(at)) return Math.max(1, Math.ceil((at - nowMs()) / 1000));
  }
  const fromDetails = (details as { retryAfter?: unknown } | null | undefined)?.retryAfter;
  return typeof fromDetails === 'number' && fromDetails > 0 ? Math.ceil(fromDetails) : undefined;
}

interface ErrorEnvelope {
  error?: { code?: string; message?: string; details?: unknown };
}

/** Reads an error answer into an ApiError, naming each bad field by its last path segment and its full path. */
export function apiErrorOf(status: number, body: unknown, retryAfter?: string | null): ApiError {
  const error = (body as ErrorEnvelope | null)?.error;
  const fields: Record<string, string> = {};
  const details = error?.details as { fields?: { field: string; message: string }[] } | undefined;
  for (const problem of details?.fields ?? []) {
    fields[problem.field] ??= problem.message;
  }
  return new ApiError(
    status,
    error?.code ?? 'INTERNAL',
    error?.message ?? `The server answered ${status}`,
    fields,
    error?.details,
    retryAfterOf(retryAfter, error?.details),
  );
}
