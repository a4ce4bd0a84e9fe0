-- Order-independent box statistics (ADR 0010): each fact keeps the entity version of the event
-- that set it; the version orders facts first, then the instant and rank (which alone order the
-- events from before versions existed, version 0).
ALTER TABLE stats_violations ADD COLUMN event_version bigint NOT NULL DEFAULT 0;
ALTER TABLE stats_grace_periods ADD COLUMN event_version bigint NOT NULL DEFAULT 0;
ALTER TABLE stats_licenses ADD COLUMN event_version bigint NOT NULL DEFAULT 0;
ALTER TABLE stats_license_requests ADD COLUMN event_version bigint NOT NULL DEFAULT 0;
