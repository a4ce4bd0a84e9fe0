-- Where each violation's and appeal's newest decision sits in licensing's transparency log
-- (contracts §16, docs/adr/0030), from licensing.log_entry.appended; shown as their `logEntry`.
ALTER TABLE violations ADD COLUMN log_entry_index bigint;
ALTER TABLE violations ADD COLUMN log_entry_leaf_hash text;
ALTER TABLE appeals ADD COLUMN log_entry_index bigint;
ALTER TABLE appeals ADD COLUMN log_entry_leaf_hash text;
