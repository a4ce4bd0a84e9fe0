-- When the detection question behind the newest answer applied to the avatar was asked (wall
-- clock). An answer asked earlier than that is stale: detection knew less when it gave it, so it
-- must not undo what a newer answer did (a box scan's violation closed by an evaluation that
-- was in flight before the box was indexed).
ALTER TABLE avatars ADD COLUMN answer_asked_at timestamptz NULL;
