import type { Queryable } from '@svc/ports';

// Request logs (#32): each API key's recent requests. The hot path only appends to this replica's
// buffer; a periodic job writes the buffer in one statement every second, and on stop. The log is
// diagnostics, not an account of record: when the database is unreachable the buffer keeps the
// newest MAX_BUFFERED requests and says how many older ones it dropped.

export interface LoggedRequest {
  platformId: string;
  keyId: string;
  at: Date;
  method: string;
  path: string;
  operation: string | null;
  status: number;
  latencyMs: number;
  requestId: string;
}

export interface RequestLogFilter {
  keyId?: string | undefined;
  requestId?: string | undefined;
  status?: '2xx' | '4xx' | '5xx' | undefined;
  limit: number;
  offset: number;
}

export interface RequestLogStore {
  append(q: Queryable, entries: LoggedRequest[]): Promise<void>;
  recent(
    q: Queryable,
    platformId: string,
    filter: RequestLogFilter,
  ): Promise<{ items: LoggedRequest[]; total: number }>;
  purge(q: Queryable, before: Date): Promise<number>;
}

/** Requests held by one replica at most, while its writes fail. */
export const MAX_BUFFERED = 10_000;

export class RequestLogBuffer {
  private entries: LoggedRequest[] = [];
  /** Requests dropped (oldest first) because the buffer was full, since the last write. */
  dropped = 0;

  constructor(
    private readonly store: RequestLogStore,
    private readonly max = MAX_BUFFERED,
  ) {}

  note(entry: LoggedRequest): void {
    if (this.entries.length >= this.max) {
      this.entries.shift();
      this.dropped += 1;
    }
    this.entries.push(entry);
  }

  get size(): number {
    return this.entries.length;
  }

  /** Writes what is buffered in one statement; a write that fails keeps it for the next call. */
  async write(q: Queryable): Promise<number> {
    if (this.entries.length === 0) return 0;
    const taken = this.entries;
    this.entries = [];
    try {
      await this.store.append(q, taken);
      this.dropped = 0;
      return taken.length;
    } catch (err) {
      // Put back in front of what arrived meanwhile, within the bound.
      const kept = [...taken, ...this.entries];
      const over = Math.max(0, kept.length - this.max);
      this.dropped += over;
      this.entries = kept.slice(over);
      throw err;
    }
  }
}
