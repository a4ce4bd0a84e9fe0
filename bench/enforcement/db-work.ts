/**
 * The relay's database work in the enforcement bench (issue #33: "measured and halved"). Two views
 * of the same phase:
 *
 * - from the client: every statement the relay sends (a transaction's `BEGIN` and `COMMIT`
 *   counted as the two statements they are) and the time spent waiting for their answers;
 * - from PostgreSQL: the bench database's counters in `pg_stat_database` (rows read and written,
 *   buffer pages touched, transactions, and `active_time`, the time its sessions spent executing
 *   statements). The relay phase is the only one using that database then; its pool is closed
 *   before the counters are read, since a session flushes its counters when it ends.
 */
import { performance } from 'node:perf_hooks';
import type { Database, Queryable } from '@svc/storage';

export interface ClientWork {
  statements: number;
  transactions: number;
  waitMs: number;
}

/** `db` with every statement counted and timed (nested transactions are not used by the relay). */
export function countingDatabase(db: Database): { db: Database; work: ClientWork } {
  const work: ClientWork = { statements: 0, transactions: 0, waitMs: 0 };
  const timed = async <T>(run: () => Promise<T>): Promise<T> => {
    const started = performance.now();
    try {
      return await run();
    } finally {
      work.waitMs += performance.now() - started;
      work.statements += 1;
    }
  };
  const counting = (q: Queryable): Queryable => ({
    query: (text, params, options) => timed(() => q.query(text, params, options)),
    exec: (text) => timed(() => q.exec(text)),
  });
  const wrapped: Database = {
    kind: db.kind,
    ...counting(db),
    transaction: async (fn, options) => {
      work.transactions += 1;
      // BEGIN and COMMIT (or ROLLBACK): two round trips the callback does not see, timed as
      // the transaction's time outside the callback.
      work.statements += 2;
      const started = performance.now();
      let inside = 0;
      try {
        return await db.transaction(async (tx) => {
          const entered = performance.now();
          try {
            return await fn(counting(tx));
          } finally {
            inside = performance.now() - entered;
          }
        }, options);
      } finally {
        work.waitMs += performance.now() - started - inside;
      }
    },
    ping: () => db.ping(),
    close: () => db.close(),
  };
  return { db: wrapped, work };
}

export interface ServerWork {
  transactions: number;
  rowsRead: number;
  rowsWritten: number;
  buffers: number;
  activeMs: number;
}

/** The bench database's cumulative counters (PostgreSQL 14 or later for `active_time`). */
export async function serverWork(db: Queryable): Promise<ServerWork> {
  const { rows } = await db.query<Record<string, unknown>>(
    `SELECT xact_commit + xact_rollback AS transactions, tup_returned + tup_fetched AS rows_read,
       tup_inserted + tup_updated + tup_deleted AS rows_written, blks_hit + blks_read AS buffers,
       active_time AS active_ms
     FROM pg_stat_database WHERE datname = current_database()`,
  );
  const row = rows[0] ?? {};
  return {
    transactions: Number(row['transactions'] ?? 0),
    rowsRead: Number(row['rows_read'] ?? 0),
    rowsWritten: Number(row['rows_written'] ?? 0),
    buffers: Number(row['buffers'] ?? 0),
    activeMs: Number(row['active_ms'] ?? 0),
  };
}

/**
 * Waits until the counters stop moving (sessions that ended have flushed theirs; an idle session
 * flushes within 10 s in PostgreSQL 15), so a phase's delta holds only that phase's work.
 */
export async function settledServerWork(db: Queryable, timeoutMs = 12_000): Promise<ServerWork> {
  const deadline = performance.now() + timeoutMs;
  let last = await serverWork(db);
  for (;;) {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const next = await serverWork(db);
    // Our own reading is one transaction and a few rows; anything more is someone else's flush.
    const moved = next.transactions - last.transactions > 1 || next.rowsWritten !== last.rowsWritten;
    last = next;
    if (!moved || performance.now() > deadline) return last;
  }
}

export interface WorkPerEvent {
  statements: number;
  transactions: number;
  rowsRead: number;
  rowsWritten: number;
  buffers: number;
  /** PostgreSQL's time executing the relay's statements, µs per event. */
  dbMicros: number;
  /** The relay's time waiting for its statements' answers, µs per event. */
  waitMicros: number;
}

export function workPerEvent(
  client: ClientWork,
  before: ServerWork,
  after: ServerWork,
  events: number,
): WorkPerEvent {
  const per = (value: number): number => value / events;
  return {
    statements: per(client.statements),
    transactions: per(after.transactions - before.transactions),
    rowsRead: per(after.rowsRead - before.rowsRead),
    rowsWritten: per(after.rowsWritten - before.rowsWritten),
    buffers: per(after.buffers - before.buffers),
    dbMicros: per((after.activeMs - before.activeMs) * 1000),
    waitMicros: per(client.waitMs * 1000),
  };
}

export function describeWork(work: WorkPerEvent): string {
  return (
    `${work.statements.toFixed(4)} statements, ${work.transactions.toFixed(4)} transactions, ` +
    `${work.rowsRead.toFixed(2)} rows read, ${work.rowsWritten.toFixed(2)} rows written, ` +
    `${work.buffers.toFixed(1)} buffer pages, ${work.dbMicros.toFixed(1)} µs executing in PostgreSQL, ` +
    `${work.waitMicros.toFixed(1)} µs waited by the relay`
  );
}

/** The figures for the JSON line, rounded. */
export function roundedWork(work: WorkPerEvent): WorkPerEvent {
  const to = (value: number, digits: number): number => Math.round(value * 10 ** digits) / 10 ** digits;
  return {
    statements: to(work.statements, 4),
    transactions: to(work.transactions, 4),
    rowsRead: to(work.rowsRead, 2),
    rowsWritten: to(work.rowsWritten, 2),
    buffers: to(work.buffers, 1),
    dbMicros: to(work.dbMicros, 1),
    waitMicros: to(work.waitMicros, 1),
  };
}
