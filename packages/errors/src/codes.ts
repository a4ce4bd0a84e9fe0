/**
 * The closed set of error codes of the public interface (docs/spec/contracts.md §2) and the one place
 * where each is mapped to its HTTP status.
 */
export const ERROR_CODES = {
  UNAUTHORIZED: { status: 401, retryable: false },
  KEY_REVOKED: { status: 401, retryable: false },
  KEY_EXPIRED: { status: 401, retryable: false },
  WRONG_ENVIRONMENT: { status: 401, retryable: false },
  FORBIDDEN: { status: 403, retryable: false },
  NOT_FOUND: { status: 404, retryable: false },
  VALIDATION_ERROR: { status: 400, retryable: false },
  INVALID_NAME: { status: 400, retryable: false },
  BATCH_TOO_LARGE: { status: 400, retryable: false },
  INVALID_IMAGE_URL: { status: 422, retryable: false },
  IMAGE_TOO_LARGE: { status: 413, retryable: false },
  INVALID_STATE: { status: 409, retryable: false },
  IDEMPOTENCY_CONFLICT: { status: 409, retryable: false },
  RATE_LIMITED: { status: 429, retryable: true },
  SERVICE_UNAVAILABLE: { status: 503, retryable: true },
  INTERNAL: { status: 500, retryable: true },
} as const satisfies Record<string, { status: number; retryable: boolean }>;

export type ErrorCode = keyof typeof ERROR_CODES;

/** True when `value` is one of the closed set of codes. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CODES, value);
}

/** HTTP status of a code. */
export function httpStatusOf(code: ErrorCode): number {
  return ERROR_CODES[code].status;
}
