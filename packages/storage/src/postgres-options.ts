// How a PostgreSQL pool is configured: its options, default timeouts and session settings.

export interface PostgresOptions {
  url: string;
  maxConnections?: number;
  /** Called with connection errors of idle and checked-out clients (logged, never thrown). */
  onError?: (err: Error) => void;
  applicationName?: string;
  /** Settings of every session of this pool, e.g. `{ synchronous_commit: 'off' }`. */
  sessionSettings?: Record<string, string>;
  /**
   * A statement the server has not answered in this long fails, and its connection is dropped
   * (default 60 s; 0: never). A connection whose packets vanish (a partition, a dead NAT entry)
   * closes nothing: without this, its query would wait for TCP to give up, about 15 minutes.
   */
  queryTimeoutMs?: number;
  /**
   * The server ends a session whose transaction has waited this long for its next statement
   * (`idle_in_transaction_session_timeout`; default 30 s; 0: never). A replica cut off from the
   * database mid-transaction keeps its row locks on the server, which sees a quiet connection, not
   * a dead one, for hours (TCP keepalive): every other replica's write to those rows, and every
   * outbox relay skipping them, would wait that long. No transaction of ours waits between its
   * statements for more than a few seconds (a relay's confirms: 3 s at most).
   */
  idleInTransactionTimeoutMs?: number;
}

/** The default of `queryTimeoutMs`: longer than any statement of ours (scripts are not cut). */
export const QUERY_TIMEOUT_MS = 60_000;
/** The default of `idleInTransactionTimeoutMs`: the fence on a silent replica's row locks. */
export const IDLE_IN_TRANSACTION_TIMEOUT_MS = 30_000;
// node-postgres reads a query_timeout of 0 as "the pool's"; this is the longest a timer may wait.
export const SCRIPT_TIMEOUT_MS = 2 ** 31 - 1;

/**
 * The session settings as the start-up `options` (`-c name=value`), the idle-in-transaction fence
 * among them. Not node-postgres's own start-up parameter for it: PgBouncer refuses a connection
 * whose start-up names a parameter it does not know, and ignores `options` (the Kubernetes
 * deployment's pooler, where the fence is the server's own setting: k8s/base/infrastructure).
 */
export function sessionOptions(options: PostgresOptions): { options?: string } {
  const idleMs = options.idleInTransactionTimeoutMs ?? IDLE_IN_TRANSACTION_TIMEOUT_MS;
  const settings: Record<string, string> = {
    ...(idleMs === 0 ? {} : { idle_in_transaction_session_timeout: String(idleMs) }),
    ...options.sessionSettings,
  };
  const entries = Object.entries(settings);
  if (entries.length === 0) return {};
  return { options: entries.map(([name, value]) => `-c ${name}=${value}`).join(' ') };
}

/** node-postgres's answer when `query_timeout` passes: the client may be half-open, never reuse it. */
export function isReadTimeout(err: unknown): err is Error {
  return err instanceof Error && err.message === 'Query read timeout';
}
