import { AppError, errors, isTransientFailure, unavailableFrom } from '../../src';

function withCode(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('isTransientFailure', () => {
  it.each([
    ['connection refused', withCode('connect ECONNREFUSED 127.0.0.1:5432', 'ECONNREFUSED')],
    ['connection reset', withCode('read ECONNRESET', 'ECONNRESET')],
    ['a DNS lookup that may work later', withCode('getaddrinfo EAI_AGAIN db', 'EAI_AGAIN')],
    ['pg: connection failure (08006)', withCode('connection failure', '08006')],
    ['pg: connection does not exist (08003)', withCode('connection does not exist', '08003')],
    ['pg: admin shutdown (57P01)', withCode('terminating connection due to administrator command', '57P01')],
    ['pg: crash shutdown (57P02)', withCode('crash', '57P02')],
    ['pg: cannot connect now (57P03)', withCode('the database system is starting up', '57P03')],
    ['pg: too many connections (53300)', withCode('sorry, too many clients already', '53300')],
    ['pg: serialization failure (40001)', withCode('could not serialize access', '40001')],
    ['pg: deadlock (40P01)', withCode('deadlock detected', '40P01')],
    [
      'pg: a database closed to connections for maintenance (55000)',
      withCode('database "detection" is not currently accepting connections', '55000'),
    ],
    ['pg: statement timeout (57014)', withCode('canceling statement due to statement timeout', '57014')],
    ['node-postgres: connection terminated', new Error('Connection terminated unexpectedly')],
    ['pg-pool: connect timeout', new Error('timeout exceeded when trying to connect')],
    ['an open breaker', withCode('Breaker is open', 'EOPENBREAKER')],
    [
      'an AbortSignal time-out',
      Object.assign(new Error('The operation was aborted due to timeout'), { name: 'TimeoutError' }),
    ],
    ['SERVICE_UNAVAILABLE', errors.unavailable('detection is down')],
    ['RATE_LIMITED', new AppError('RATE_LIMITED', 'slow down')],
    ['INTERNAL wrapping a refused connection', errors.internal(withCode('refused', 'ECONNREFUSED'))],
    [
      'an error caused by a terminated connection',
      new Error('projection failed', { cause: new Error('Connection terminated') }),
    ],
    [
      'an AggregateError of refused connects (IPv4 and IPv6)',
      new AggregateError([withCode('a', 'ECONNREFUSED'), withCode('b', 'ECONNREFUSED')], 'connect failed'),
    ],
  ])('when the failure is %s, then it is transient', (_what, err) => {
    expect(isTransientFailure(err)).toBe(true);
  });

  it.each([
    ['a plain bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['a zod-like validation failure', Object.assign(new Error('Invalid input'), { name: 'ZodError' })],
    ['pg: unique violation (23505)', withCode('duplicate key value violates unique constraint', '23505')],
    ['pg: undefined column (42703)', withCode('column "x" does not exist', '42703')],
    [
      'pg: another object-state error (55000)',
      withCode('currval of sequence "s" is not yet defined', '55000'),
    ],
    ['pg: invalid input syntax (22P02)', withCode('invalid input syntax for type uuid', '22P02')],
    ['VALIDATION_ERROR', new AppError('VALIDATION_ERROR', 'bad')],
    [
      'NOT_FOUND even when caused by a refused connection',
      new AppError('NOT_FOUND', 'x', { cause: withCode('r', 'ECONNREFUSED') }),
    ],
    ['INTERNAL with no cause', errors.internal()],
    ['a thrown string', 'connection refused'],
    ['undefined', undefined],
  ])('when the failure is %s, then it is not transient', (_what, err) => {
    expect(isTransientFailure(err)).toBe(false);
  });

  it('when causes form a cycle, then it answers without looping', () => {
    const a = new Error('a');
    const b = new Error('b', { cause: a });
    Object.assign(a, { cause: b });

    expect(isTransientFailure(a)).toBe(false);
  });
});

describe('unavailableFrom', () => {
  it('when an unexpected error is a lost database connection, then it is a 503 SERVICE_UNAVAILABLE with Retry-After', () => {
    const lost = new Error('Connection terminated unexpectedly');

    const mapped = unavailableFrom(lost);

    expect(mapped?.code).toBe('SERVICE_UNAVAILABLE');
    expect(mapped?.status).toBe(503);
    expect(mapped?.headers['Retry-After']).toBe('1');
    expect(mapped?.cause).toBe(lost);
  });

  it('when the error is a bug, or already an AppError other than INTERNAL, then there is nothing to map', () => {
    expect(unavailableFrom(new TypeError('x is undefined'))).toBeUndefined();
    expect(unavailableFrom(errors.unavailable('already one'))).toBeUndefined();
    expect(unavailableFrom(new AppError('NOT_FOUND', 'no'))).toBeUndefined();
  });
});
