-- Answers to an Idempotency-Key are kept by the service that carried the write out, in the same
-- transaction as the write (ADR 0011). The gateway only binds a key to the request it was first
-- used with, so that reusing it for another request, on any service, is a 409.
DROP TABLE idempotency_records;

CREATE TABLE idempotency_bindings (
  platform_id text NOT NULL,
  idempotency_key text NOT NULL,
  fingerprint text NOT NULL,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (platform_id, idempotency_key)
);
CREATE INDEX idempotency_bindings_created_idx ON idempotency_bindings (created_at);
