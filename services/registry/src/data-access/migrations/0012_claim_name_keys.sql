-- Each claim's name and variations in the form a conflict is found by (issue #32, "Creators"):
-- another account's claim on a name that shares a key with this one is shown to the operator
-- beside it, and its owner is told. Written by the registry (data-access/name-keys.ts nameKeyOf) on every
-- insert and update; the backfill below applies the same rule.
ALTER TABLE claims ADD COLUMN name_keys text[] NOT NULL DEFAULT '{}';

UPDATE claims
   SET name_keys = ARRAY(
         SELECT DISTINCT btrim(regexp_replace(regexp_replace(lower(value), '[.''’‘"]', '', 'g'), '[-_,[:space:]]+', ' ', 'g'))
           FROM (SELECT name AS value UNION ALL SELECT jsonb_array_elements_text(variations)) AS names);

CREATE INDEX claims_name_keys ON claims USING gin (name_keys);
