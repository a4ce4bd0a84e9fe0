-- Where each box's newest decision sits in licensing's transparency log (contracts §16, docs/adr/0030),
-- from licensing.log_entry.appended; shown as the box's `logEntry`.
ALTER TABLE boxes ADD COLUMN log_entry_index bigint;
ALTER TABLE boxes ADD COLUMN log_entry_leaf_hash text;
