-- Resolutions are checked against the facts (issue 14). The license projection keeps the tier, so a
-- `licensed` resolution can tell whether the license covers the avatar's use (NULL: an event
-- recorded before this column, read as covering no commercial use).
ALTER TABLE licenses ADD COLUMN tier text NULL;

-- Who resolved a violation and on what evidence (the license, the avatar as it was re-evaluated),
-- shown to the hosting platform and to the box owner; the avatar as it was when detected, so the
-- box owner can see what changed.
ALTER TABLE violations ADD COLUMN resolved_by text NULL;
ALTER TABLE violations ADD COLUMN resolution_evidence jsonb NULL;
ALTER TABLE violations ADD COLUMN detected_avatar jsonb NULL;
CREATE INDEX violations_box_owner_idx ON violations (box_id, detected_at DESC, seq DESC);

-- The box owner contests a resolution through the same review as appeals: kind `contest`, filed by
-- the box owner (platform_id), decided by the operator.
ALTER TABLE appeals ADD COLUMN kind text NOT NULL DEFAULT 'appeal';

-- A licensed avatar whose license lapses is evaluated again.
CREATE INDEX avatars_match_box_idx ON avatars (platform_id, (match ->> 'boxId')) WHERE deleted_at IS NULL;
