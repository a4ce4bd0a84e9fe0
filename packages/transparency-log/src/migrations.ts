import type { MigrationSource } from '@svc/storage';

/**
 * The log's tables, in the database of the service that owns it (namespace `transparency`):
 * - `transparency_entries`: one row per leaf, in order (`idx` from 0 without gaps), with the bytes
 *   hashed into the leaf, the parties who may read it, and the source (an event id) that appended
 *   it, unique, so a redelivered event appends nothing.
 * - `transparency_subtrees`: the hash of every complete, aligned subtree of 2^level leaves
 *   (level ≥ 1): leaves [idx·2^level, (idx+1)·2^level). They never change once written, and any
 *   tree head or proof is assembled from O(log² n) of them.
 * - `transparency_state`: one row, the size; appends lock it, so the order of appends is the order
 *   of commits.
 * - `transparency_tree_heads`: every tree head signed, kept (a monitor can ask for an old one).
 * Nothing here is ever updated or deleted but the size (REVOKE UPDATE, DELETE is the deployment's
 * to add: the service's role owns its tables).
 */
export const transparencyLogMigrations: MigrationSource = {
  namespace: 'transparency',
  migrations: [
    {
      version: 1,
      name: 'transparency_log',
      sql: `
CREATE TABLE transparency_entries (
  idx bigint PRIMARY KEY,
  leaf_hash bytea NOT NULL,
  entry bytea NOT NULL,
  parties text[] NOT NULL,
  source_id text NOT NULL UNIQUE,
  appended_at timestamptz NOT NULL
);
CREATE INDEX transparency_entries_leaf_idx ON transparency_entries (leaf_hash);

CREATE TABLE transparency_subtrees (
  level smallint NOT NULL,
  idx bigint NOT NULL,
  hash bytea NOT NULL,
  PRIMARY KEY (level, idx)
);

CREATE TABLE transparency_state (
  id smallint PRIMARY KEY CHECK (id = 1),
  size bigint NOT NULL
);
INSERT INTO transparency_state (id, size) VALUES (1, 0);

CREATE TABLE transparency_tree_heads (
  tree_size bigint PRIMARY KEY,
  root_hash bytea NOT NULL,
  signed_at timestamptz NOT NULL,
  signature text NOT NULL
);
`,
    },
  ],
};
