import { AsyncLocalStorage } from 'node:async_hooks';
import type { Database, Queryable } from './database';

/**
 * Work that must commit with every write a request makes to one database, e.g. the row that
 * records the request's Idempotency-Key: the key and the effect then commit (or roll back) together.
 */
export interface TransactionHook {
  /** The database whose transactions run the hook; transactions of any other database ignore it. */
  readonly db: Database;
  /** Runs first in each transaction of `db` while the hook is active; throwing rolls that transaction back. */
  enlist(tx: Queryable): Promise<void>;
  /** False once the request is answered: work it started later (a relay it kicked) is not its own. */
  isActive(): boolean;
}

const current = new AsyncLocalStorage<TransactionHook>();

/** Runs `fn` (and everything it starts) with `hook` enlisted in the transactions of `hook.db`. */
export function runWithTransactionHook<T>(hook: TransactionHook, fn: () => T): T {
  return current.run(hook, fn);
}

/** The active hook of the current request for this database, if any. */
export function transactionHookFor(db: Database): TransactionHook | undefined {
  const hook = current.getStore();
  return hook !== undefined && hook.db === db && hook.isActive() ? hook : undefined;
}

// A statement sent outside a transaction that may change data. WITH is counted as a write: a
// data-modifying CTE must not escape the hook, and a read-only one costs only a short transaction.
const WRITE_STATEMENT = /^\s*(insert|update|delete|merge|with)\b/i;

/** True when a statement may change data (it then runs in a transaction with the hook). */
export function isWriteStatement(sql: string): boolean {
  return WRITE_STATEMENT.test(sql);
}
