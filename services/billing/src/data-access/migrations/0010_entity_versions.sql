-- Order-independent license projection (ADR 0010): the version of the licensing.license.* event
-- (or of licensing's answer to a read-through) that set the row. 0: set before versions existed.
ALTER TABLE licenses ADD COLUMN version bigint NOT NULL DEFAULT 0;
