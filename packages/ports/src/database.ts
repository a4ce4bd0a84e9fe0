/** Something SQL can be sent to: the database itself or an open transaction. */
export interface Queryable {
  query<R extends object = Record<string, unknown>>(
    sql: string,
    params?: unknown[],
    options?: QueryOptions,
  ): Promise<QueryResult<R>>;
  /** Runs a script of several statements without parameters (migrations). */
  exec(sql: string): Promise<void>;
}

export interface QueryOptions {
  /**
   * Prepares the statement under this name once per connection (PostgreSQL), so hot queries are
   * not planned on every call. One name, one SQL text.
   */
  name?: string;
}

export interface QueryResult<R> {
  rows: R[];
  rowCount: number;
}

export interface TransactionOptions {
  /**
   * False for a write that is not the request's own effect, only bookkeeping any retry may repeat
   * (a read-through filling a projection): the request's Idempotency-Key does not commit with it,
   * so a failure after it still lets a retry carry the request out (ADR 0011). Default true.
   */
  requestEffect?: boolean;
  /**
   * Reads only, every one from the same snapshot (REPEATABLE READ, READ ONLY): an answer assembled
   * from several queries agrees with itself even while writes commit between them. Never the
   * request's effect (implies `requestEffect: false`).
   */
  snapshot?: boolean;
}

/** A service's own database, whichever engine runs it. */
export interface Database extends Queryable {
  readonly kind: 'postgres' | 'pglite';
  /** Runs `fn` in one transaction: committed when it resolves, rolled back when it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T>;
  /** Resolves when the database answers a trivial query. */
  ping(): Promise<void>;
  close(): Promise<void>;
}
