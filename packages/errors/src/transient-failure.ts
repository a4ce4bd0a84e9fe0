import { AppError, errors, isAppError } from './app-error';

// Socket and DNS failures of Node (net, http, undici): the other end is not there right now.
const TRANSIENT_SYSTEM_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'ESOCKETTIMEDOUT',
  'EHOSTUNREACH',
  'EHOSTDOWN',
  'ENETUNREACH',
  'ENETDOWN',
  'EAI_AGAIN',
  'ENOTFOUND',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
  'UND_ERR_SOCKET',
  'UND_ERR_CLOSED',
  // opossum: the breaker is open (the dependency failed recently) or the call timed out.
  'EOPENBREAKER',
]);

// PostgreSQL SQLSTATEs that say "try again later", not "this request is wrong".
const TRANSIENT_SQLSTATE_CLASSES = [
  '08', // connection exception
  '53', // insufficient resources (53300 too many connections, 53100 disk full…)
];
const TRANSIENT_SQLSTATES = new Set([
  '57P01', // admin_shutdown
  '57P02', // crash_shutdown
  '57P03', // cannot_connect_now (starting up, recovering)
  '57P05', // idle_session_timeout
  '57014', // query_canceled (statement_timeout)
  '55P03', // lock_not_available (lock_timeout)
  '40001', // serialization_failure
  '40P01', // deadlock_detected
  '58030', // io_error on the server
]);

// Errors node-postgres, pg-pool and PGlite raise without a code when the connection goes away.
const TRANSIENT_MESSAGES = [
  /connection terminated/i,
  /terminating connection/i,
  /timeout exceeded when trying to connect/i,
  // node-postgres's query_timeout: the server did not answer in time (a hung or blackholed link).
  /^Query read timeout$/,
  /not queryable/i,
  /connection (?:is )?closed/i,
  /cannot use a pool after calling end/i,
  /PGlite is closed/i,
  /socket hang up/i,
  /the database system is (?:starting up|shutting down|in recovery mode)/i,
  // 55000 is a broad class (most of it bugs); this one is an operator closing the database for a
  // while (ALTER DATABASE … ALLOW_CONNECTIONS false, maintenance), so it passes.
  /database ".*" is not currently accepting connections/i,
];

// An error holds another in `cause` (AppError, fetch) or several in `errors` (AggregateError of
// the happy-eyeballs connect); a chain longer than this is a cycle or a mistake.
const MAX_DEPTH = 8;

/**
 * True when `err` means a dependency is unavailable for now (database or broker down, connection
 * refused or reset, PostgreSQL connection-class SQLSTATEs, serialization failures, timeouts, an
 * open breaker, a retryable AppError such as SERVICE_UNAVAILABLE). Retrying later can succeed.
 * False for everything else (validation, poison, a bug): retrying cannot help.
 */
export function isTransientFailure(err: unknown): boolean {
  return transient(err, 0);
}

function transient(err: unknown, depth: number): boolean {
  if (depth > MAX_DEPTH || err === null || typeof err !== 'object') return false;
  if (isAppError(err)) {
    // INTERNAL is a bug unless what it wraps says otherwise; every other code decides by itself.
    if (err.code !== 'INTERNAL') return err.retryable;
    return transient(err.cause, depth + 1);
  }
  const { code, name, message } = err as { code?: unknown; name?: unknown; message?: unknown };
  if (typeof code === 'string') {
    if (TRANSIENT_SYSTEM_CODES.has(code) || TRANSIENT_SQLSTATES.has(code)) return true;
    if (/^[0-9A-Z]{5}$/.test(code) && TRANSIENT_SQLSTATE_CLASSES.includes(code.slice(0, 2))) return true;
  }
  // AbortSignal.timeout() and fetch time-outs.
  if (name === 'TimeoutError') return true;
  if (typeof message === 'string' && TRANSIENT_MESSAGES.some((pattern) => pattern.test(message))) return true;
  const nested = err as { cause?: unknown; errors?: unknown };
  if (Array.isArray(nested.errors) && nested.errors.some((inner) => transient(inner, depth + 1))) return true;
  return nested.cause !== undefined && transient(nested.cause, depth + 1);
}

/**
 * The 503 SERVICE_UNAVAILABLE (with Retry-After) that an unexpected error stands for when a
 * dependency is down, or undefined when it is not a transient failure (then it is a real 500).
 */
export function unavailableFrom(err: unknown, retryAfterSeconds = 1): AppError | undefined {
  if (isAppError(err) && err.code !== 'INTERNAL') return undefined;
  if (!isTransientFailure(err)) return undefined;
  return errors.unavailable(
    'A dependency of this service is unavailable; retry shortly',
    retryAfterSeconds,
    err,
  );
}
