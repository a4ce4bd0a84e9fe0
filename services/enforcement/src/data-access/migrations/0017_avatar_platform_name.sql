-- The hosting platform's name as the gateway vouched for it when the avatar was reported (issue #32,
-- "names instead of ids"): the box owner's list of violations names the platform, not plat_….
-- Null for avatars reported before it was kept (the list then shows the id).
ALTER TABLE avatars ADD COLUMN platform_name text NULL;
