// Where a decision about a violation or an appeal sits in licensing's transparency log
// (docs/spec/contracts.md §16), learnt from licensing.log_entry.appended.

/** Where a logged decision sits: its leaf index and its leaf hash (base64). */
export interface LogEntryRef {
  index: number;
  leafHash: string;
}
