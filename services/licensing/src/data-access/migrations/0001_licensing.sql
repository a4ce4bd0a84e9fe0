-- The projection of registry boxes (registry.box.* events). A deleted box keeps its row
-- (deleted_at set): its licenses stay active and pending requests can still be denied.
CREATE TABLE boxes (
  box_id text PRIMARY KEY,
  claim_id text NOT NULL,
  owner_platform_id text NOT NULL,
  identity_name text NOT NULL,
  policy text NOT NULL,
  policy_config jsonb NOT NULL DEFAULT '{}',
  royalty_rate double precision NOT NULL DEFAULT 0,
  updated_at timestamptz NOT NULL,
  deleted_at timestamptz NULL
);
CREATE INDEX boxes_claim_idx ON boxes (claim_id);

-- Money in integer cents.
CREATE TABLE license_requests (
  id text PRIMARY KEY,
  seq bigserial NOT NULL,
  box_id text NOT NULL,
  claim_id text NOT NULL,
  identity_name text NOT NULL,
  box_owner_platform_id text NOT NULL,
  licensee_platform_id text NOT NULL,
  licensee_platform_name text NOT NULL,
  tier text NOT NULL,
  use_case text NOT NULL,
  estimated_users integer NULL,
  message text NULL,
  term_months integer NOT NULL,
  auto_renew boolean NOT NULL,
  monthly_fee_cents bigint NOT NULL,
  royalty_rate double precision NOT NULL,
  currency text NOT NULL,
  terms jsonb NOT NULL,
  status text NOT NULL,
  submitted_at timestamptz NOT NULL,
  decided_at timestamptz NULL,
  reason text NULL,
  license_id text NULL
);
CREATE INDEX license_requests_box_idx ON license_requests (box_id, submitted_at DESC, seq DESC);

CREATE TABLE licenses (
  id text PRIMARY KEY,
  seq bigserial NOT NULL,
  request_id text NOT NULL UNIQUE REFERENCES license_requests (id),
  box_id text NOT NULL,
  claim_id text NOT NULL,
  identity_name text NOT NULL,
  box_owner_platform_id text NOT NULL,
  licensee_platform_id text NOT NULL,
  licensee_platform_name text NOT NULL,
  tier text NOT NULL,
  status text NOT NULL,
  monthly_fee_cents bigint NOT NULL,
  royalty_rate double precision NOT NULL,
  currency text NOT NULL,
  terms jsonb NOT NULL,
  term_months integer NOT NULL,
  auto_renew boolean NOT NULL,
  valid_from timestamptz NOT NULL,
  expires_at timestamptz NOT NULL,
  cancel_at timestamptz NULL,
  cancel_reason text NULL,
  ended_at timestamptz NULL,
  created_at timestamptz NOT NULL
);
CREATE INDEX licenses_licensee_idx ON licenses (licensee_platform_id, created_at DESC, seq DESC);
CREATE INDEX licenses_due_idx ON licenses (expires_at) WHERE status = 'active';

-- Usage reported to billing, for a license's detail: the highest version per license and period.
CREATE TABLE license_usage (
  license_id text NOT NULL,
  period text NOT NULL,
  version integer NOT NULL,
  subscribers double precision NOT NULL,
  messages double precision NOT NULL,
  revenue_cents bigint NOT NULL,
  royalty_due_cents bigint NOT NULL,
  PRIMARY KEY (license_id, period)
);
