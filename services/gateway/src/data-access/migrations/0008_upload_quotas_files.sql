-- Dashboard uploads under budgets (#30, docs/spec/contracts.md §17). The bytes may live in a file
-- store instead of this table (bytes NULL): the embedded default keeps them under its data
-- directory, since storing 5 MiB in PGlite blocked the event loop for seconds. An account's live
-- uploads count against its quota; the purge deletes uploads no claim names once they are old.
ALTER TABLE dashboard_uploads ALTER COLUMN bytes DROP NOT NULL;
CREATE INDEX dashboard_uploads_account_idx ON dashboard_uploads (account_id);
CREATE INDEX dashboard_uploads_created_idx ON dashboard_uploads (created_at);
-- When the purge last found the upload named by a claim: each pass asks about those asked least lately.
ALTER TABLE dashboard_uploads ADD COLUMN purge_checked_at timestamptz;
