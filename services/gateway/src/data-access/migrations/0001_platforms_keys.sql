-- Platforms (tenants) and their API keys. Only a SHA-256 of a key is kept.
CREATE TABLE platforms (
  id text PRIMARY KEY,
  name text NOT NULL,
  plan text NOT NULL CHECK (plan IN ('sandbox', 'basic', 'standard', 'enterprise')),
  domain text,
  per_minute integer,
  per_day integer,
  created_at timestamptz NOT NULL
);

CREATE TABLE api_keys (
  id text PRIMARY KEY,
  platform_id text NOT NULL REFERENCES platforms (id),
  environment text NOT NULL CHECK (environment IN ('sandbox', 'production')),
  key_hash text NOT NULL UNIQUE,
  -- The first key of a rotation chain: a rotated key and its successors share one budget.
  budget_id text NOT NULL,
  created_at timestamptz NOT NULL,
  -- Set when the key is rotated: it keeps working until then.
  expires_at timestamptz,
  revoked_at timestamptz,
  replaced_by text
);
CREATE INDEX api_keys_platform_idx ON api_keys (platform_id);

-- Fixed-window counters shared by every gateway replica.
CREATE TABLE rate_limit_counters (
  bucket text NOT NULL,
  window_start timestamptz NOT NULL,
  count integer NOT NULL,
  PRIMARY KEY (bucket, window_start)
);
CREATE INDEX rate_limit_counters_window_idx ON rate_limit_counters (window_start);

-- Stored responses replayed for a repeated Idempotency-Key (24 h).
CREATE TABLE idempotency_records (
  platform_id text NOT NULL,
  idempotency_key text NOT NULL,
  fingerprint text NOT NULL,
  state text NOT NULL CHECK (state IN ('in_progress', 'done')),
  response_status integer,
  response_headers jsonb,
  response_body text,
  created_at timestamptz NOT NULL,
  PRIMARY KEY (platform_id, idempotency_key)
);
CREATE INDEX idempotency_records_created_idx ON idempotency_records (created_at);
