-- The tier of each license (issue #15): a personal license does not cover commercial use.
ALTER TABLE licenses ADD COLUMN tier text NOT NULL DEFAULT 'personal';
