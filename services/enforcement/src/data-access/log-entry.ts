import type { LogEntryRef } from '../domain/log-entry';

/** A stored position (`log_entry_index`, `log_entry_leaf_hash`), or null while nothing is appended. */
export function logEntryOf(index: number | string | null, leafHash: string | null): LogEntryRef | null {
  return index === null || leafHash === null ? null : { index: Number(index), leafHash };
}
