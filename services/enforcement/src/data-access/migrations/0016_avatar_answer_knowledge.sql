-- How far detection's index had read its projection when it gave the newest answer applied to the
-- avatar (issue #34): answers of one projection are ordered by it, not by when they were asked. An
-- answer asked first can know more than one asked after it (its request waited longer, or reached
-- a replica that had read further): ordered by answer_asked_at alone, a later "no match" that knew
-- less closed the violation an earlier answer had opened. NULL: an answer without it (a detection
-- of an earlier release); answer_asked_at then decides, as before.
ALTER TABLE avatars ADD COLUMN answer_projection text NULL;
ALTER TABLE avatars ADD COLUMN answer_position bigint NULL;
