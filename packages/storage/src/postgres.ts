import pg from 'pg';
import type { Database, QueryOptions, QueryResult, Queryable, TransactionOptions } from './database';
import {
  isWriteStatement,
  settleHeldCommit,
  transactionHookFor,
  transactionHookOf,
} from './transaction-hook';
import {
  type PostgresOptions,
  QUERY_TIMEOUT_MS,
  SCRIPT_TIMEOUT_MS,
  sessionOptions,
  isReadTimeout,
} from './postgres-options';
import { ServingEvidence } from './serving-evidence';
export { type PostgresOptions, QUERY_TIMEOUT_MS, IDLE_IN_TRANSACTION_TIMEOUT_MS } from './postgres-options';
export { ANSWER_EVIDENCE_MS } from './serving-evidence';

/** How long an idle pooled connection is kept before it is closed. */
const IDLE_CONNECTION_MS = 30_000;

// COUNT(*) and bigserial come back as int8; every value we keep fits in a double.
pg.types.setTypeParser(pg.types.builtins.INT8, (value: string) => Number(value));

class PgQueryable implements Queryable {
  constructor(private readonly client: pg.Pool | pg.PoolClient) {}

  async query<R extends object>(
    sql: string,
    params: unknown[] = [],
    options: QueryOptions = {},
  ): Promise<QueryResult<R>> {
    const result =
      options.name === undefined
        ? await this.client.query<R>(sql, params)
        : await this.client.query<R>({ name: options.name, text: sql, values: params });
    return { rows: result.rows, rowCount: result.rowCount ?? result.rows.length };
  }

  /** Scripts (migrations, which may build an index for minutes) are never cut by the query timeout. */
  async exec(sql: string): Promise<void> {
    await this.client.query({ text: sql, query_timeout: SCRIPT_TIMEOUT_MS } as pg.QueryConfig);
  }
}

/** A PostgreSQL database through a `pg` connection pool. */
export class PostgresDatabase implements Database {
  readonly kind = 'postgres' as const;
  private readonly pool: pg.Pool;
  private readonly root: PgQueryable;
  private readonly onError: ((err: Error) => void) | undefined;
  private readonly evidence = new ServingEvidence();
  /** Where it connects: a listener opens its own session there (notifications.ts). */
  readonly url: string;

  constructor(options: PostgresOptions) {
    this.url = options.url;
    this.pool = new pg.Pool({
      connectionString: options.url,
      max: options.maxConnections ?? 10,
      application_name: options.applicationName,
      ...sessionOptions(options),
      connectionTimeoutMillis: 5000,
      // An idle connection is kept 30 s (node-postgres: 10 s), so that the bursts of a steady load
      // reuse sessions instead of opening new ones: each costs the server a backend start, and on
      // a starved machine a start can outlast the 5 s above and fail the request that waited.
      idleTimeoutMillis: IDLE_CONNECTION_MS,
      ...(options.queryTimeoutMs === 0 ? {} : { query_timeout: options.queryTimeoutMs ?? QUERY_TIMEOUT_MS }),
      // An idle connection to a vanished server is found out by TCP keepalive, not by the next query.
      keepAlive: true,
      keepAliveInitialDelayMillis: 10_000,
    });
    this.onError = options.onError;
    // An idle client's connection dying is reported here, never thrown: the pool drops the client
    // and opens a new one on the next query.
    this.pool.on('error', (err) => {
      this.evidence.settled(err);
      options.onError?.(err);
    });
    // Between handing a client out and the borrower's own listener there is a window: a new
    // client's ReadyForQuery and the server's goodbye (57P01 during a restart) can arrive in one
    // read, and the second message is parsed before `await pool.connect()` resumes. An 'error'
    // event with no listener kills the process, so every client keeps one listener for its whole
    // life. It reports only what no other listener (the pool's idle one, a transaction's) saw;
    // the client is then not queryable, its query fails as transient and the pool discards it.
    this.pool.on('connect', (client) => {
      client.on('error', (err) => {
        this.evidence.settled(err);
        if (client.listenerCount('error') === 1) options.onError?.(err);
      });
    });
    this.root = new PgQueryable(this.pool);
  }

  query<R extends object = Record<string, unknown>>(
    sql: string,
    params?: unknown[],
    options?: QueryOptions,
  ): Promise<QueryResult<R>> {
    const settling = settleHeldCommit();
    if (settling !== undefined) return settling.then(() => this.query<R>(sql, params, options));
    // A write outside a transaction during a hooked request still commits with the hook's work.
    if (transactionHookFor(this) !== undefined && isWriteStatement(sql)) {
      return this.transaction((tx) => tx.query<R>(sql, params, options));
    }
    return this.root.query<R>(sql, params, options).then(
      (result) => {
        this.evidence.answered();
        return result;
      },
      (err: unknown) => {
        this.evidence.settled(err);
        throw err;
      },
    );
  }

  async exec(sql: string): Promise<void> {
    await settleHeldCommit();
    return this.root.exec(sql);
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    await settleHeldCommit();
    const hook = transactionHookOf(this, options);
    let client: pg.PoolClient;
    try {
      client = await this.pool.connect();
    } catch (err) {
      this.evidence.settled(err);
      throw err;
    }
    // pg-pool listens for errors of idle clients only: a checked-out client whose connection
    // dies (a PostgreSQL restart, pg_terminate_backend) emits 'error' with no listener, which
    // kills the process. The query in flight fails on its own; this keeps the process alive and
    // makes sure the broken client is destroyed rather than handed out again.
    let broken: Error | undefined;
    const onError = (err: Error): void => {
      broken = err;
      this.onError?.(err);
    };
    client.on('error', onError);
    // A statement that timed out leaves the client half-open (node-postgres#3399): no ROLLBACK can
    // be sent on it, and it must be destroyed rather than go back to the pool.
    const noteTimeout = (err: unknown): void => {
      if (broken === undefined && isReadTimeout(err)) broken = err;
    };
    const rollBack = async (): Promise<void> => {
      // The work failed (often for a reason of the caller's): whether the server still serves is
      // what the ROLLBACK says, or the connection's own error when it broke.
      if (broken !== undefined) this.evidence.settled(broken);
      else
        await client.query('ROLLBACK').then(
          () => this.evidence.answered(),
          (rollbackErr: unknown) => this.evidence.settled(rollbackErr),
        );
    };
    const giveBack = (): void => {
      client.removeListener('error', onError);
      client.release(broken);
    };
    let held = false;
    try {
      await client.query(
        options.snapshot === true ? 'BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY' : 'BEGIN',
      );
      const tx = new PgQueryable(client);
      await hook?.enlist(tx);
      const result = await fn(tx);
      // The request's hook may keep the transaction open to commit its answer with it.
      held =
        hook?.hold?.({
          commit: async (last) => {
            try {
              await last?.(tx);
              await client.query('COMMIT');
              this.evidence.answered();
            } catch (err) {
              noteTimeout(err);
              await rollBack();
              throw err;
            } finally {
              giveBack();
            }
          },
        }) === true;
      if (held) return result;
      await client.query('COMMIT');
      this.evidence.answered();
      return result;
    } catch (err) {
      noteTimeout(err);
      await rollBack();
      throw err;
    } finally {
      if (!held) giveBack();
    }
  }

  /** Resolves when the database serves: at once when it answered a query just now, else after `SELECT 1`. */
  async ping(): Promise<void> {
    if (this.evidence.fresh) return;
    await this.query('SELECT 1');
  }

  async close(): Promise<void> {
    await this.pool.end();
  }
}

/**
 * Creates the database named in `url` when it does not exist yet (cluster mode: one database per
 * service on a shared server), connecting to the server's `postgres` database to do it.
 */
export async function ensurePostgresDatabase(url: string): Promise<void> {
  const target = new URL(url);
  const name = decodeURIComponent(target.pathname.replace(/^\//, ''));
  if (name === '' || name === 'postgres') return;
  const admin = new URL(url);
  admin.pathname = '/postgres';
  const client = new pg.Client({ connectionString: admin.toString(), connectionTimeoutMillis: 5000 });
  // A goodbye from the server while no query runs is an 'error' event: the next query fails instead.
  client.on('error', () => undefined);
  await client.connect();
  try {
    const exists = await client.query('SELECT 1 FROM pg_database WHERE datname = $1', [name]);
    if (exists.rowCount === 0) {
      try {
        await client.query(`CREATE DATABASE "${name.replace(/"/g, '""')}"`);
      } catch (err) {
        // Two replicas starting together: the other one created it first.
        if ((err as { code?: string }).code !== '42P04' && (err as { code?: string }).code !== '23505')
          throw err;
      }
    }
  } finally {
    await client.end();
  }
}
