import { ERROR_CODES, httpStatusOf, isErrorCode, type ErrorCode } from '../../src';

// docs/spec/contracts.md §2, the table: the spec these tests hold the code to.
const CONTRACT: Record<ErrorCode, number> = {
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
};

describe('error codes', () => {
  it.each(Object.entries(CONTRACT))('when the code is %s, then its HTTP status is %i', (code, status) => {
    expect(httpStatusOf(code as ErrorCode)).toBe(status);
    expect(ERROR_CODES[code as ErrorCode].status).toBe(status);
  });

  it('when the codes are listed, then they are exactly the sixteen of the contract, no more and no fewer', () => {
    expect(Object.keys(ERROR_CODES).sort()).toEqual(Object.keys(CONTRACT).sort());
    expect(Object.keys(ERROR_CODES)).toHaveLength(16);
  });

  it('when a code is only worth retrying later, then it is flagged retryable, and client mistakes are not', () => {
    const retryable = Object.entries(ERROR_CODES)
      .filter(([, spec]) => spec.retryable)
      .map(([code]) => code)
      .sort();

    expect(retryable).toEqual(['INTERNAL', 'RATE_LIMITED', 'SERVICE_UNAVAILABLE']);
  });

  it('when a value is checked, then only the listed codes pass, case-sensitively and never inherited names', () => {
    expect(isErrorCode('NOT_FOUND')).toBe(true);
    expect(isErrorCode('not_found')).toBe(false);
    expect(isErrorCode('TEAPOT')).toBe(false);
    expect(isErrorCode('toString')).toBe(false);
    expect(isErrorCode('__proto__')).toBe(false);
    expect(isErrorCode(404)).toBe(false);
    expect(isErrorCode(undefined)).toBe(false);
  });
});
