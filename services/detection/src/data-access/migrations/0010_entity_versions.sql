-- Order-independent projection (ADR 0010): each part of an identity keeps the version of the
-- entity event that set it, and a state from an older version never overwrites a newer one.
-- 0 means "set by an event from before versions existed"; every versioned event is newer.
ALTER TABLE identities ADD COLUMN claim_version bigint NOT NULL DEFAULT 0;
ALTER TABLE identities ADD COLUMN box_version bigint NOT NULL DEFAULT 0;

-- A deleted box never comes back (box ids are not reused): a late created or updated event of
-- it is stale, whatever order its events arrive in.
CREATE TABLE deleted_boxes (
  box_id text PRIMARY KEY
);

ALTER TABLE licenses ADD COLUMN version bigint NOT NULL DEFAULT 0;
