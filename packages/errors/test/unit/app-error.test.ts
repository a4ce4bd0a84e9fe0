import { AppError, errors, isAppError } from '../../src';

describe('AppError', () => {
  it('when raised with a code, then it carries that code, the status of the code and the message', () => {
    const err = new AppError('INVALID_STATE', 'Violation already resolved');

    expect(err).toBeInstanceOf(Error);
    expect(err.name).toBe('AppError');
    expect(err.code).toBe('INVALID_STATE');
    expect(err.status).toBe(409);
    expect(err.retryable).toBe(false);
    expect(err.message).toBe('Violation already resolved');
    expect(err.headers).toEqual({});
  });

  it('when it has no details, then the body is {error: {code, message}} with no details key at all', () => {
    const body = new AppError('NOT_FOUND', 'Claim claim_x not found').toBody();

    expect(body).toStrictEqual({ error: { code: 'NOT_FOUND', message: 'Claim claim_x not found' } });
    expect(Object.keys(body.error)).toEqual(['code', 'message']);
  });

  it('when it has details, then the body carries them as given', () => {
    const details = { limit: 60, remaining: 0, resetAt: '2026-01-01T00:01:00.000Z', retryAfter: 42 };
    const body = new AppError('RATE_LIMITED', 'Too many requests', { details }).toBody();

    expect(body).toStrictEqual({ error: { code: 'RATE_LIMITED', message: 'Too many requests', details } });
  });

  it('when the body is serialised, then it has no stack, no cause and no status', () => {
    const err = new AppError('INTERNAL', 'Internal error', { cause: new Error('db password is hunter2') });
    const json = JSON.stringify(err.toBody());

    expect(json).toBe('{"error":{"code":"INTERNAL","message":"Internal error"}}');
  });

  it('when a status is given, then it overrides the usual status of the code (a body over 1 MB: 413)', () => {
    const err = new AppError('VALIDATION_ERROR', 'Request body is larger than the 1 MB limit', {
      status: 413,
    });

    expect(err.status).toBe(413);
    expect(err.code).toBe('VALIDATION_ERROR');
    expect(new AppError('VALIDATION_ERROR', 'x').status).toBe(400);
  });

  it('when a cause is given, then it is kept as the standard error cause', () => {
    const cause = new Error('connection refused');
    const err = new AppError('SERVICE_UNAVAILABLE', 'Registry unavailable', { cause });

    expect(err.cause).toBe(cause);
    expect(new AppError('NOT_FOUND', 'x')).not.toHaveProperty('cause');
  });

  it('when headers are given, then they are kept for the response', () => {
    const err = new AppError('RATE_LIMITED', 'Too many requests', { headers: { 'Retry-After': '30' } });

    expect(err.headers).toEqual({ 'Retry-After': '30' });
  });
});

describe('isAppError', () => {
  it('when given an AppError, then it is true', () => {
    expect(isAppError(new AppError('FORBIDDEN', 'no'))).toBe(true);
  });

  it('when given an AppError of another copy of the package (same shape, another class), then it is true', () => {
    class AppErrorCopy extends Error {
      readonly code = 'NOT_FOUND';
      readonly status = 404;
      override name = 'AppError';
      toBody() {
        return { error: { code: this.code, message: this.message } };
      }
    }

    expect(isAppError(new AppErrorCopy('gone'))).toBe(true);
  });

  it('when given a plain error, a string, null or a lookalike object, then it is false', () => {
    expect(isAppError(new Error('boom'))).toBe(false);
    expect(isAppError('NOT_FOUND')).toBe(false);
    expect(isAppError(null)).toBe(false);
    expect(isAppError({ name: 'AppError', code: 'NOT_FOUND', status: 404, toBody: () => ({}) })).toBe(false);
  });

  it("when a library's own error is also named AppError but has a code outside the set, then it is false", () => {
    const foreign = Object.assign(new Error('upstream said no'), { name: 'AppError', code: 'E_UPSTREAM' });

    expect(isAppError(foreign)).toBe(false);
  });

  it('when an error named AppError has a known code but no status or body, then it is false', () => {
    const foreign = Object.assign(new Error('half an AppError'), { name: 'AppError', code: 'NOT_FOUND' });

    expect(isAppError(foreign)).toBe(false);
  });
});

describe('errors shorthands', () => {
  it('when a resource is missing, then notFound names it and its id, with 404', () => {
    expect(errors.notFound('Claim', 'claim_abc')).toMatchObject({
      code: 'NOT_FOUND',
      status: 404,
      message: 'Claim claim_abc not found',
    });
    expect(errors.notFound('Route').message).toBe('Route not found');
  });

  it('when a downstream is unavailable, then unavailable is a retryable 503 with Retry-After (1 s by default)', () => {
    const cause = new Error('breaker open');
    const err = errors.unavailable('Licensing is unavailable', 5, cause);

    expect(err).toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503, retryable: true });
    expect(err.headers).toEqual({ 'Retry-After': '5' });
    expect(err.cause).toBe(cause);
    expect(errors.unavailable('down').headers).toEqual({ 'Retry-After': '1' });
  });

  it('when forbidden, invalid state, validation or internal are raised, then each has its code, status and details', () => {
    expect(errors.forbidden('Live keys cannot use test helpers')).toMatchObject({
      code: 'FORBIDDEN',
      status: 403,
    });
    expect(errors.invalidState('Already resolved', { status: 'resolved' })).toMatchObject({
      code: 'INVALID_STATE',
      status: 409,
      details: { status: 'resolved' },
    });
    expect(errors.validation('Bad', ['x']).toBody()).toEqual({
      error: { code: 'VALIDATION_ERROR', message: 'Bad', details: ['x'] },
    });
    expect(errors.validation('Bad').toBody()).toStrictEqual({
      error: { code: 'VALIDATION_ERROR', message: 'Bad' },
    });
    const cause = new Error('bug');
    expect(errors.internal(cause)).toMatchObject({
      code: 'INTERNAL',
      status: 500,
      message: 'Internal error',
      cause,
    });
  });
});

describe('errors.rateLimited', () => {
  it('when a limit is reached, then the 429 carries limit, remaining, resetAt and retryAfter (docs/spec/contracts.md §2) and Retry-After', () => {
    const now = new Date('2026-11-29T10:00:00.000Z');
    const err = errors.rateLimited('Slow down', 5, new Date('2026-11-29T10:02:00.400Z'), now);
    expect(err).toMatchObject({
      code: 'RATE_LIMITED',
      status: 429,
      message: 'Slow down',
      details: { limit: 5, remaining: 0, resetAt: '2026-11-29T10:02:00.400Z', retryAfter: 121 },
      headers: { 'Retry-After': '121' },
    });
    // A reset already past still asks for a second.
    expect(errors.rateLimited('x', 1, now, now).details).toMatchObject({ retryAfter: 1 });
  });
});
