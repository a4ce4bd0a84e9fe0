-- Where each license's newest decision sits in the transparency log (docs/spec/contracts.md §16, docs/adr/0030):
-- written in the transaction that appends it, shown as the license's `logEntry`. A table of its own,
-- so that recording it never locks a license row: the expiry job skips locked licenses, and the
-- log's consumer must not make a due license wait for the next pass.
CREATE TABLE license_log_entries (
  license_id text PRIMARY KEY REFERENCES licenses (id),
  log_entry_index bigint NOT NULL,
  log_entry_leaf_hash text NOT NULL
);
