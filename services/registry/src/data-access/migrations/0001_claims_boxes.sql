-- Claims with their variations and reference images (small lists, always read with the claim).
CREATE TABLE claims (
  id text PRIMARY KEY,
  seq bigserial NOT NULL,
  owner_platform_id text NOT NULL,
  name text NOT NULL,
  variations jsonb NOT NULL DEFAULT '[]',
  entity_type text NOT NULL,
  status text NOT NULL,
  verification_tier text NOT NULL,
  verification jsonb NULL,
  proofs jsonb NOT NULL DEFAULT '[]',
  reference_images jsonb NOT NULL DEFAULT '[]',
  rejection_reason text NULL,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  verified_at timestamptz NULL
);
CREATE INDEX claims_owner_idx ON claims (owner_platform_id, created_at DESC, seq DESC);
CREATE INDEX claims_status_idx ON claims (status, created_at DESC, seq DESC);

-- One box per claim: the constraint decides when two requests race.
CREATE TABLE boxes (
  id text PRIMARY KEY,
  seq bigserial NOT NULL,
  claim_id text NOT NULL UNIQUE REFERENCES claims (id) ON DELETE CASCADE,
  owner_platform_id text NOT NULL,
  policy text NOT NULL,
  enforcement text NOT NULL,
  policy_config jsonb NOT NULL DEFAULT '{}',
  status text NOT NULL DEFAULT 'active',
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL
);
CREATE INDEX boxes_created_idx ON boxes (created_at DESC, seq DESC);

-- Box statistics: a read model of other services' events, one row per fact they describe. Each
-- row keeps the instant (and a tie-break rank) of the event that set it, so an older event
-- arriving late never overwrites a newer state.
CREATE TABLE stats_violations (
  violation_id text PRIMARY KEY,
  box_id text NOT NULL,
  status text NOT NULL,
  detected_at timestamptz NULL,
  resolved_at timestamptz NULL,
  event_at timestamptz NOT NULL,
  event_rank integer NOT NULL
);
CREATE INDEX stats_violations_box_idx ON stats_violations (box_id);

CREATE TABLE stats_grace_periods (
  grace_period_id text PRIMARY KEY,
  box_id text NOT NULL,
  status text NOT NULL,
  event_at timestamptz NOT NULL,
  event_rank integer NOT NULL
);
CREATE INDEX stats_grace_periods_box_idx ON stats_grace_periods (box_id);

CREATE TABLE stats_licenses (
  license_id text PRIMARY KEY,
  box_id text NOT NULL,
  licensee_platform_id text NOT NULL,
  licensee_platform_name text NOT NULL,
  status text NOT NULL,
  event_at timestamptz NOT NULL,
  event_rank integer NOT NULL
);
CREATE INDEX stats_licenses_box_idx ON stats_licenses (box_id);

CREATE TABLE stats_license_requests (
  request_id text PRIMARY KEY,
  box_id text NOT NULL,
  status text NOT NULL,
  event_at timestamptz NOT NULL,
  event_rank integer NOT NULL
);
CREATE INDEX stats_license_requests_box_idx ON stats_license_requests (box_id);

-- Money in integer cents. One row per license and period: a correction (higher version) replaces it.
CREATE TABLE stats_usage (
  license_id text NOT NULL,
  period text NOT NULL,
  version integer NOT NULL,
  box_id text NOT NULL,
  licensee_platform_id text NOT NULL,
  licensee_platform_name text NOT NULL,
  users integer NOT NULL,
  subscriptions_cents bigint NOT NULL,
  messages_cents bigint NOT NULL,
  tips_cents bigint NOT NULL,
  total_cents bigint NOT NULL,
  PRIMARY KEY (license_id, period)
);
CREATE INDEX stats_usage_box_idx ON stats_usage (box_id, period);
