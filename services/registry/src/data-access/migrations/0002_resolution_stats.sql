-- How each violation was resolved and by whom (issue 14), for the box owner's statistics.
ALTER TABLE stats_violations ADD COLUMN resolution text NULL;
ALTER TABLE stats_violations ADD COLUMN resolved_by text NULL;
