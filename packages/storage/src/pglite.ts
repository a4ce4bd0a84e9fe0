import type { PGlite, Transaction } from '@electric-sql/pglite';
import type { Database, QueryResult, Queryable, TransactionOptions } from './database';
import { seedDataDir, templateTar } from './pglite-template';
import {
  isWriteStatement,
  settleHeldCommit,
  transactionHookFor,
  transactionHookOf,
  type HeldCommit,
} from './transaction-hook';

export type PgliteExtension = 'pg_trgm' | 'fuzzystrmatch';

export interface PgliteOptions {
  /** A directory for the data files; omitted: in memory. */
  dataDir?: string;
  extensions?: PgliteExtension[];
}

function toNumberIfBigint(row: Record<string, unknown>): Record<string, unknown> {
  for (const [key, value] of Object.entries(row)) {
    if (typeof value === 'bigint') row[key] = Number(value);
  }
  return row;
}

class PgliteQueryable implements Queryable {
  constructor(private readonly target: PGlite | Transaction) {}

  async query<R extends object>(sql: string, params: unknown[] = []): Promise<QueryResult<R>> {
    const result = await this.target.query<Record<string, unknown>>(sql, params);
    const rows = result.rows.map(toNumberIfBigint) as R[];
    // PGlite reports affectedRows 0 for a SELECT; pg's rowCount is the number of rows returned.
    return { rows, rowCount: Math.max(result.affectedRows ?? 0, rows.length) };
  }

  async exec(sql: string): Promise<void> {
    await this.target.exec(sql);
  }
}

/** PostgreSQL compiled to WebAssembly, in this process: the embedded default and fast tests. */
export class PgliteDatabase implements Database {
  readonly kind = 'pglite' as const;
  private readonly root: PgliteQueryable;

  private constructor(private readonly pglite: PGlite) {
    this.root = new PgliteQueryable(pglite);
  }

  /**
   * Opens (or creates) a PGlite database, loading the requested extensions. A new one starts from
   * the machine's template cluster (./pglite-template) rather than from initdb, six times faster.
   */
  static async open(options: PgliteOptions = {}): Promise<PgliteDatabase> {
    const { PGlite } = await import('@electric-sql/pglite');
    const extensions: Record<string, unknown> = {};
    for (const name of options.extensions ?? []) {
      if (name === 'pg_trgm')
        extensions.pg_trgm = (await import('@electric-sql/pglite/contrib/pg_trgm')).pg_trgm;
      if (name === 'fuzzystrmatch')
        extensions.fuzzystrmatch = (await import('@electric-sql/pglite/contrib/fuzzystrmatch')).fuzzystrmatch;
    }
    let loadDataDir: Blob | undefined;
    if (options.dataDir === undefined) loadDataDir = await templateTar();
    else await seedDataDir(options.dataDir);
    const pglite = await PGlite.create({
      ...(options.dataDir === undefined ? {} : { dataDir: options.dataDir }),
      ...(loadDataDir === undefined ? {} : { loadDataDir }),
      extensions: extensions as never,
    });
    return new PgliteDatabase(pglite);
  }

  query<R extends object = Record<string, unknown>>(
    sql: string,
    params?: unknown[],
  ): Promise<QueryResult<R>> {
    const settling = settleHeldCommit();
    if (settling !== undefined) return settling.then(() => this.query<R>(sql, params));
    // A write outside a transaction during a hooked request still commits with the hook's work.
    if (transactionHookFor(this) !== undefined && isWriteStatement(sql)) {
      return this.transaction((tx) => tx.query<R>(sql, params));
    }
    return this.root.query<R>(sql, params);
  }

  async exec(sql: string): Promise<void> {
    await settleHeldCommit();
    return this.root.exec(sql);
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>, options: TransactionOptions = {}): Promise<T> {
    await settleHeldCommit();
    const hook = transactionHookOf(this, options);
    if (hook?.hold === undefined) {
      return this.pglite.transaction(async (raw) => {
        // PGlite has one session, so its reads agree anyway; READ ONLY still refuses a write.
        if (options.snapshot === true)
          await raw.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ, READ ONLY');
        const tx = new PgliteQueryable(raw);
        await hook?.enlist(tx);
        return fn(tx);
      });
    }
    const offer = hook.hold.bind(hook);
    // PGlite commits when the callback returns: a held transaction's callback waits for the hook's
    // commit, while its caller already has the result. Everything else on this database waits too,
    // which is why the hook commits within the turn of the event loop unless the request answers.
    return new Promise<T>((resolve, reject) => {
      let held = false;
      const whole: Promise<T> = this.pglite.transaction(async (raw) => {
        const tx = new PgliteQueryable(raw);
        await hook.enlist(tx);
        const result = await fn(tx);
        let last: Parameters<HeldCommit['commit']>[0];
        let finish!: () => void;
        const finished = new Promise<void>((done) => (finish = done));
        held = offer({
          commit: (work) => {
            last = work;
            finish();
            return whole.then(() => undefined);
          },
        });
        if (!held) return result;
        resolve(result);
        await finished;
        await last?.(tx);
        return result;
      });
      whole.then(
        (result) => {
          if (!held) resolve(result);
        },
        (err: unknown) => {
          if (!held) reject(err);
        },
      );
    });
  }

  async ping(): Promise<void> {
    await this.pglite.query('SELECT 1');
  }

  /**
   * LISTEN in this process: a NOTIFY is handed to `onNotification` when the statement that
   * committed it returns, before its caller goes on. The one session is never lost.
   */
  async listen(
    channel: string,
    handlers: { onNotification(payload: string): void; onSubscribed(): void },
  ): Promise<{ roundTrip(timeoutMs: number): Promise<void>; close(): Promise<void> }> {
    const unlisten = await this.pglite.listen(channel, (payload) => handlers.onNotification(payload));
    handlers.onSubscribed();
    return {
      roundTrip: async () => {
        await this.pglite.query('SELECT 1');
      },
      close: async () => {
        if (!this.pglite.closed) await unlisten();
      },
    };
  }

  async close(): Promise<void> {
    if (!this.pglite.closed) await this.pglite.close();
  }
}
