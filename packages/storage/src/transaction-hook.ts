import { AsyncLocalStorage } from 'node:async_hooks';
import type { Database, Queryable, TransactionOptions } from './database';

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
  /**
   * Offered the request's transaction once its work is done and before it commits: true takes it,
   * and the hook must then call `commit` (soon: other work waits on its locks), which may first
   * write into it, e.g. the answer to the request. The transaction's caller gets its result at once.
   */
  hold?(held: HeldCommit): boolean;
  /** Commits a held transaction before the request touches a database again; undefined when none is held. */
  settle?(): Promise<void> | undefined;
}

/** A transaction whose work is done, kept open so that something may still commit with it. */
export interface HeldCommit {
  /** Runs `last` in the transaction, then commits; rejects (all rolled back) when either fails. */
  commit(last?: (tx: Queryable) => Promise<void>): Promise<void>;
}

const current = new AsyncLocalStorage<TransactionHook>();

/** Runs `fn` (and everything it starts) with `hook` enlisted in the transactions of `hook.db`. */
export function runWithTransactionHook<T>(hook: TransactionHook, fn: () => T): T {
  return current.run(hook, fn);
}

/**
 * Before any statement of the current request, on any database: a transaction the request's hook
 * holds commits first, so that the request reads its own writes and never waits on its own locks.
 * Undefined (nothing to wait for) in the usual case.
 */
export function settleHeldCommit(): Promise<void> | undefined {
  const hook = current.getStore();
  return hook !== undefined && hook.isActive() ? hook.settle?.() : undefined;
}

/** The active hook of the current request for this database, if any. */
export function transactionHookFor(db: Database): TransactionHook | undefined {
  const hook = current.getStore();
  return hook !== undefined && hook.db === db && hook.isActive() ? hook : undefined;
}

/**
 * The hook a transaction of `db` enlists in: none for bookkeeping that is not the request's effect
 * (ADR 0011) nor for a read-only snapshot.
 */
export function transactionHookOf(db: Database, options: TransactionOptions): TransactionHook | undefined {
  return options.requestEffect === false || options.snapshot === true ? undefined : transactionHookFor(db);
}

// A statement sent outside a transaction that may change data. WITH is counted as a write: a
// data-modifying CTE must not escape the hook, and a read-only one costs only a short transaction.
const WRITE_STATEMENT = /^\s*(insert|update|delete|merge|with)\b/i;

/** True when a statement may change data (it then runs in a transaction with the hook). */
export function isWriteStatement(sql: string): boolean {
  return WRITE_STATEMENT.test(sql);
}
