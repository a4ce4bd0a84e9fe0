-- The projection's own id, made once: an index snapshot records the projection it was built from,
-- and a replica never loads one from another database (a restored backup, another environment).
CREATE TABLE projection_identity (
  projection_id text PRIMARY KEY
);
INSERT INTO projection_identity (projection_id) VALUES (md5(random()::text || clock_timestamp()::text));
