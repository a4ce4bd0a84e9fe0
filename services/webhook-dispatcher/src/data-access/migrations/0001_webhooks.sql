-- Webhook endpoints of platforms, the deliveries owed to them and every attempt.
CREATE TABLE webhook_endpoints (
  id text PRIMARY KEY,
  platform_id text NOT NULL,
  url text NOT NULL,
  events jsonb NOT NULL,
  description text,
  status text NOT NULL CHECK (status IN ('enabled', 'disabled')),
  disabled_reason text,
  disabled_at timestamptz,
  -- whsec_<base64>. The previous one keeps signing until previous_secret_expires_at (rotation).
  secret text NOT NULL,
  previous_secret text,
  previous_secret_expires_at timestamptz,
  -- The per-endpoint circuit: consecutive failed attempts, since when, and until when it is open.
  consecutive_failures integer NOT NULL DEFAULT 0,
  failing_since timestamptz,
  last_success_at timestamptz,
  breaker_open_until timestamptz,
  -- One worker (of any replica) delivers to an endpoint at a time: it holds the lease.
  lease_owner text,
  lease_until timestamptz,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX webhook_endpoints_platform_idx ON webhook_endpoints (platform_id, created_at DESC);

CREATE TABLE webhook_deliveries (
  -- Insertion order: deliveries to one endpoint go oldest first.
  seq bigserial NOT NULL UNIQUE,
  id text PRIMARY KEY,
  endpoint_id text NOT NULL REFERENCES webhook_endpoints (id) ON DELETE CASCADE,
  platform_id text NOT NULL,
  event_id text NOT NULL,
  event_type text NOT NULL,
  -- The exact body that is signed and sent on every attempt.
  payload text NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'succeeded', 'failed')),
  test boolean NOT NULL DEFAULT false,
  -- A manual re-send makes one attempt, without the automatic schedule after it.
  manual boolean NOT NULL DEFAULT false,
  attempt_count integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz,
  last_response_status integer,
  last_error text,
  event_created_at timestamptz NOT NULL,
  created_at timestamptz NOT NULL,
  -- A redelivered internal event maps to the same public event id: one delivery per endpoint.
  UNIQUE (endpoint_id, event_id)
);
CREATE INDEX webhook_deliveries_due_idx
  ON webhook_deliveries (endpoint_id, next_attempt_at, seq) WHERE status = 'pending';
CREATE INDEX webhook_deliveries_list_idx ON webhook_deliveries (endpoint_id, seq DESC);

CREATE TABLE webhook_attempts (
  delivery_id text NOT NULL REFERENCES webhook_deliveries (id) ON DELETE CASCADE,
  number integer NOT NULL,
  attempted_at timestamptz NOT NULL,
  outcome text NOT NULL CHECK (outcome IN ('succeeded', 'failed')),
  response_status integer,
  duration_ms integer NOT NULL,
  error text,
  next_retry_at timestamptz,
  PRIMARY KEY (delivery_id, number)
);
