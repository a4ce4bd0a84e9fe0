-- Order-independent box projection (ADR 0010): the version of the registry.box.* event (or of
-- the registry's answer to a read-through) that set the row. 0: set before versions existed.
ALTER TABLE boxes ADD COLUMN version bigint NOT NULL DEFAULT 0;
