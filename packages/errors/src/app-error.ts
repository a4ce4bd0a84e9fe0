import { ERROR_CODES, isErrorCode, type ErrorCode } from './codes';

export type ErrorDetails = string | Record<string, unknown> | unknown[];

export interface AppErrorOptions {
  details?: ErrorDetails;
  cause?: unknown;
  /** Extra response headers the error implies (e.g. Retry-After). */
  headers?: Record<string, string>;
  /** Overrides the code's usual status where the contract says so (a body over 1 MB: VALIDATION_ERROR, 413). */
  status?: number;
}

/** The one error type of the system: a stable code, its HTTP status, a retryable flag and an optional cause. */
export class AppError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly retryable: boolean;
  readonly details: ErrorDetails | undefined;
  readonly headers: Record<string, string>;

  constructor(code: ErrorCode, message: string, options: AppErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'AppError';
    this.code = code;
    this.status = options.status ?? ERROR_CODES[code].status;
    this.retryable = ERROR_CODES[code].retryable;
    this.details = options.details;
    this.headers = options.headers ?? {};
  }

  /** The public body `{error: {code, message, details?}}`. */
  toBody(): ErrorBody {
    const error: ErrorBody['error'] = { code: this.code, message: this.message };
    if (this.details !== undefined) error.details = this.details;
    return { error };
  }
}

export interface ErrorBody {
  error: { code: ErrorCode; message: string; details?: ErrorDetails };
}

/** True for an AppError, including one thrown by another copy of this package. */
export function isAppError(err: unknown): err is AppError {
  if (err instanceof AppError) return true;
  // Another copy of this package has the same shape; a library's own "AppError" (a common name)
  // does not, and treating it as ours would answer with an undefined status or no body.
  return (
    err instanceof Error &&
    err.name === 'AppError' &&
    isErrorCode((err as { code?: unknown }).code) &&
    typeof (err as { status?: unknown }).status === 'number' &&
    typeof (err as { toBody?: unknown }).toBody === 'function'
  );
}

/** Shorthands for the errors every service raises. */
export const errors = {
  notFound: (what: string, id?: string) =>
    new AppError('NOT_FOUND', id === undefined ? `${what} not found` : `${what} ${id} not found`),
  forbidden: (message: string) => new AppError('FORBIDDEN', message),
  invalidState: (message: string, details?: ErrorDetails) =>
    new AppError('INVALID_STATE', message, details === undefined ? {} : { details }),
  validation: (message: string, details?: ErrorDetails) =>
    new AppError('VALIDATION_ERROR', message, details === undefined ? {} : { details }),
  unavailable: (message: string, retryAfterSeconds = 1, cause?: unknown) =>
    new AppError('SERVICE_UNAVAILABLE', message, {
      headers: { 'Retry-After': String(retryAfterSeconds) },
      cause,
    }),
  internal: (cause?: unknown) => new AppError('INTERNAL', 'Internal error', { cause }),
  /**
   * 429 with the details docs/spec/contracts.md §2 lists (limit, remaining 0, resetAt, retryAfter)
   * and the Retry-After header, retryAfter being whole seconds until `resetAt` (at least 1).
   */
  rateLimited: (message: string, limit: number, resetAt: Date, now: Date) => {
    const retryAfter = Math.max(1, Math.ceil((resetAt.getTime() - now.getTime()) / 1000));
    return new AppError('RATE_LIMITED', message, {
      details: { limit, remaining: 0, resetAt: resetAt.toISOString(), retryAfter },
      headers: { 'Retry-After': String(retryAfter) },
    });
  },
};
