import type { Hash } from '@svc/merkle-log';

// What the log takes and answers: new entries, their positions, stored entries and signed tree heads.

/** What a decision appends: its bytes (canonical JSON), who may read them, and its source (an event id). */
export interface NewEntry {
  sourceId: string;
  entry: Uint8Array;
  parties: readonly string[];
  at: Date;
}

/** Where an entry is: its leaf index and hash (`logEntry` on the resource it concerns). */
export interface LogPosition {
  index: number;
  leafHash: Hash;
}

export interface StoredEntry extends LogPosition {
  entry: Buffer;
  parties: string[];
  appendedAt: Date;
}

/** A tree head: the size and root of the log at a moment, signed by the log. */
export interface SignedTreeHead {
  treeSize: number;
  rootHash: Hash;
  timestamp: Date;
  /** A compact JWS (EdDSA) over `treeHeadPayload(...)`. */
  signature: string;
}

/** Signs a tree head's payload bytes: a compact JWS with the log's key (kid in its header). */
export type TreeHeadSigner = (payload: Uint8Array) => Promise<string>;
