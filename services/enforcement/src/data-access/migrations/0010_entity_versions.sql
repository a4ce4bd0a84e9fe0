-- Order-independent projections (ADR 0010): the version of the registry.box.* or
-- licensing.license.* event that set each row. 0: set by an event from before versions existed.
ALTER TABLE boxes ADD COLUMN version bigint NOT NULL DEFAULT 0;
ALTER TABLE licenses ADD COLUMN version bigint NOT NULL DEFAULT 0;
