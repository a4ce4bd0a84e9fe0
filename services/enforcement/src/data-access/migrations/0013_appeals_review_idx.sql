-- The operator's queue (GET /admin/appeals): appeals of one status, oldest first.
CREATE INDEX appeals_review_idx ON appeals (status, submitted_at, id);
