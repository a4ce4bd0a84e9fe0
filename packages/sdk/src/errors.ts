import type { components } from './schema.generated';

/** The error body every operation answers with: `{error: {code, message, details?}}`. */
export type ErrorBody = components['schemas']['Error'];

/**
 * The closed set of error codes (docs/spec/contracts.md §2), with their HTTP status. The type
 * check holds this list equal to the `Error.code` enum of the generated document.
 */
export const ERROR_CODES = {
  UNAUTHORIZED: 401,
  KEY_REVOKED: 401,
  KEY_EXPIRED: 401,
  WRONG_ENVIRONMENT: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  VALIDATION_ERROR: 400,
  INVALID_NAME: 400,
  BATCH_TOO_LARGE: 400,
  INVALID_IMAGE_URL: 422,
  IMAGE_TOO_LARGE: 413,
  INVALID_STATE: 409,
  IDEMPOTENCY_CONFLICT: 409,
  RATE_LIMITED: 429,
  SERVICE_UNAVAILABLE: 503,
  INTERNAL: 500,
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

// Fails to compile when the document's enum and this list differ (either way).
type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false;
const codesMatchTheDocument: Same<ErrorCode, ErrorBody['error']['code']> = true;
void codesMatchTheDocument;

/** True when `value` is one of the closed set of codes. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CODES, value);
}

/** One bad field of a VALIDATION_ERROR: `{field: "referenceImages.0.url", message}`. */
export interface ValidationField {
  /** The field's path in the body, dotted (`metrics.subscribers`); `query.`/`path.` before a parameter. */
  field: string;
  message: string;
}

/** What every error the SDK throws shares: the HTTP answer it came from, when there was one. */
export abstract class SvcError extends Error {
  abstract readonly status: number | undefined;
}

/** An error answer of the API, with one of the closed set of codes. */
export class ApiError<C extends ErrorCode = ErrorCode> extends SvcError {
  override readonly name = 'ApiError';
  readonly status: number;
  readonly code: C;
  readonly details: ErrorBody['error']['details'];
  /** `X-Request-Id` of the answer: quote it when reporting a problem. */
  readonly requestId: string | undefined;
  /** `Retry-After` in seconds (429, 503), when the answer set it as seconds (the API always does). */
  readonly retryAfterSeconds: number | undefined;
  /** True for the codes worth retrying later (RATE_LIMITED, SERVICE_UNAVAILABLE, INTERNAL). */
  readonly retryable: boolean;
  /** The bad fields a VALIDATION_ERROR names (`details.fields`), typed; empty for other errors. */
  readonly fields: ValidationField[];

  constructor(
    status: number,
    body: { error: { code: C; message: string; details?: ErrorBody['error']['details'] } },
    headers: Headers,
  ) {
    super(`${body.error.code}: ${body.error.message}`);
    this.status = status;
    this.code = body.error.code;
    this.details = body.error.details;
    this.requestId = headers.get('x-request-id') ?? undefined;
    const retryAfter = headers.get('retry-after')?.trim();
    this.retryAfterSeconds =
      retryAfter !== undefined && /^\d+$/.test(retryAfter) ? Number(retryAfter) : undefined;
    this.retryable =
      this.code === 'RATE_LIMITED' || this.code === 'SERVICE_UNAVAILABLE' || this.code === 'INTERNAL';
    this.fields = fieldsOf(this.details);
  }
}

/** `details.fields` of an error body, keeping only well-formed entries. */
function fieldsOf(details: unknown): ValidationField[] {
  if (typeof details !== 'object' || details === null || Array.isArray(details)) return [];
  const fields = (details as { fields?: unknown }).fields;
  if (!Array.isArray(fields)) return [];
  return fields.flatMap((entry: unknown) => {
    const { field, message } = (entry ?? {}) as { field?: unknown; message?: unknown };
    return typeof field === 'string' && typeof message === 'string' ? [{ field, message }] : [];
  });
}

/** An answer that is neither a success nor the error envelope (a proxy's page, a cut connection's body). */
export class UnexpectedResponseError extends SvcError {
  override readonly name = 'UnexpectedResponseError';
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`unexpected answer ${status}`);
  }
}

/** True when `err` is an ApiError, of `code` when given (narrows `err.code`). */
export function isApiError<C extends ErrorCode>(err: unknown, code?: C): err is ApiError<C> {
  return err instanceof ApiError && (code === undefined || err.code === code);
}

/** The error an answer's status and body stand for. */
export function errorOf(status: number, body: unknown, headers: Headers): SvcError {
  const error = (body as { error?: { code?: unknown; message?: unknown } } | null)?.error;
  if (error !== undefined && isErrorCode(error.code) && typeof error.message === 'string') {
    return new ApiError(status, body as ErrorBody & { error: { code: ErrorCode } }, headers);
  }
  return new UnexpectedResponseError(status, body);
}

/**
 * `Retry-After` as milliseconds from now: delta-seconds or an HTTP date (RFC 9110 §10.2.3);
 * undefined when absent or unreadable.
 */
export function retryAfterMs(headers: Headers, now: () => number): number | undefined {
  const value = headers.get('retry-after')?.trim();
  if (value === undefined || value === '') return undefined;
  if (/^\d+$/.test(value)) return Number(value) * 1000;
  const date = Date.parse(value);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now());
}
