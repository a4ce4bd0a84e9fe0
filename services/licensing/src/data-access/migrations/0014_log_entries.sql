-- Where each license's newest decision sits in the transparency log (contracts §16, docs/adr/0030):
-- written in the transaction that appends it, shown as the license's `logEntry`.
ALTER TABLE licenses ADD COLUMN log_entry_index bigint;
ALTER TABLE licenses ADD COLUMN log_entry_leaf_hash text;
