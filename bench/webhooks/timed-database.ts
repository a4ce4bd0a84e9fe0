/**
 * BENCH_STAGES=1: wraps the dispatcher's database so the bench can say where its time goes. Every
 * statement is timed (labelled by its prepared name, or the start of its SQL); every transaction
 * is timed in three parts: waiting for a pooled connection plus BEGIN, the statements inside, and
 * COMMIT (the WAL flush), labelled by its first statement. Wall-clock times of overlapping work:
 * they add up to more than the run's duration.
 */
import { performance } from 'node:perf_hooks';
import type { Database, Queryable, QueryOptions, QueryResult, TransactionOptions } from '@svc/storage';

interface Tally {
  count: number;
  ms: number;
  max: number;
}

function labelOf(sql: string, options?: QueryOptions): string {
  if (options?.name !== undefined) return options.name;
  return sql.replace(/\s+/g, ' ').trim().slice(0, 60);
}

export class TimedDatabase implements Database {
  readonly statements = new Map<string, Tally>();
  readonly transactions = new Map<
    string,
    { count: number; waitMs: number; bodyMs: number; commitMs: number }
  >();

  constructor(private readonly inner: Database) {}

  get kind() {
    return this.inner.kind;
  }

  private tally(label: string, ms: number): void {
    const t = this.statements.get(label) ?? { count: 0, ms: 0, max: 0 };
    t.count += 1;
    t.ms += ms;
    t.max = Math.max(t.max, ms);
    this.statements.set(label, t);
  }

  private timed(q: Queryable, first?: (label: string) => void): Queryable {
    return {
      query: async <R extends object>(sql: string, params?: unknown[], options?: QueryOptions) => {
        const label = labelOf(sql, options);
        first?.(label);
        const started = performance.now();
        try {
          return (await q.query<R>(sql, params, options)) as QueryResult<R>;
        } finally {
          this.tally(label, performance.now() - started);
        }
      },
      exec: (sql: string) => q.exec(sql),
    };
  }

  query<R extends object = Record<string, unknown>>(sql: string, params?: unknown[], options?: QueryOptions) {
    return this.timed(this.inner).query<R>(sql, params, options);
  }

  exec(sql: string): Promise<void> {
    return this.inner.exec(sql);
  }

  async transaction<T>(fn: (tx: Queryable) => Promise<T>, options?: TransactionOptions): Promise<T> {
    const called = performance.now();
    let began = called;
    let bodyDone = called;
    let label: string | undefined;
    const result = await this.inner.transaction(async (tx) => {
      began = performance.now();
      try {
        return await fn(
          this.timed(tx, (l) => {
            label ??= l;
          }),
        );
      } finally {
        bodyDone = performance.now();
      }
    }, options);
    const t = this.transactions.get(label ?? '(empty)') ?? { count: 0, waitMs: 0, bodyMs: 0, commitMs: 0 };
    t.count += 1;
    t.waitMs += began - called;
    t.bodyMs += bodyDone - began;
    t.commitMs += performance.now() - bodyDone;
    this.transactions.set(label ?? '(empty)', t);
    return result;
  }

  ping(): Promise<void> {
    return this.inner.ping();
  }

  close(): Promise<void> {
    return this.inner.close();
  }

  report(): string {
    const lines = [
      'where the database time went (wall clock, overlapping):',
      '  transactions (first statement): count, pool wait + BEGIN, body, COMMIT (ms, mean)',
    ];
    for (const [label, t] of [...this.transactions].sort((a, b) => b[1].count - a[1].count)) {
      const mean = (v: number) => (v / t.count).toFixed(2).padStart(8);
      lines.push(
        `    ${String(t.count).padStart(6)} ${mean(t.waitMs)} ${mean(t.bodyMs)} ${mean(t.commitMs)}  ${label}`,
      );
    }
    lines.push('  statements: count, mean ms, max ms, total s');
    for (const [label, t] of [...this.statements].sort((a, b) => b[1].ms - a[1].ms)) {
      lines.push(
        `    ${String(t.count).padStart(6)} ${(t.ms / t.count).toFixed(2).padStart(8)} ${t.max.toFixed(0).padStart(6)} ${(t.ms / 1000).toFixed(1).padStart(6)}  ${label}`,
      );
    }
    return lines.join('\n');
  }
}
