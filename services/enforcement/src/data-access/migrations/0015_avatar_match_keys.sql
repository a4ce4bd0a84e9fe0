-- A box's initial scan asks detection only about avatars that can match the box (issue #34): those
-- whose match keys (@svc/name-matching's avatarMatchKeys of the name and description) meet the
-- keys of the box's identity, those with a picture, and those whose keys were made by other rules
-- (match_keys_version, NULL before this migration; the scan worker fills them in).
ALTER TABLE avatars ADD COLUMN match_keys integer[];
ALTER TABLE avatars ADD COLUMN match_keys_version integer;
CREATE INDEX avatars_match_keys_idx ON avatars USING gin (match_keys);
-- The avatars whose keys are missing or by older rules (the versions only grow).
CREATE INDEX avatars_match_keys_version_idx ON avatars (match_keys_version);
